import { Effect } from "effect"
import type { SqlClient } from "effect/sql"

export interface ErrorEntry {
  readonly sku: string
  readonly error: string
}

/** All of a load's errors in one statement, kept in the given order (ids follow it). */
export const insertErrors = (sql: SqlClient.SqlClient, processCode: string, errors: ReadonlyArray<ErrorEntry>) =>
  errors.length === 0
    ? Effect.void
    : sql`
        INSERT INTO load_errors (process_code, sku, error)
        SELECT ${processCode}::uuid, e.value->>'sku', e.value->>'error'
        FROM jsonb_array_elements(${JSON.stringify(errors.map(({ sku, error }) => ({ sku, error })))}::jsonb)
          WITH ORDINALITY AS e(value, n)
        ORDER BY e.n
      `.pipe(Effect.asVoid)
