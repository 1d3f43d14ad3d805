import type { ChangeKind, ChangeRow } from "@retail/capacity"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { StoreError, storeOperation } from "./StoreError.ts"

const COLUMNS = `t.kind, t.target, t.part, t.day::text, t.value, t.sequence::text`

/**
 * $1 the rows as JSON, $2 the batch's sequence. Rows are inserted in key order, so two batches lock
 * the rows they share in the same order (no deadlock). A stored row is set only when its sequence
 * is below the batch's: a replay, or a batch older than the row's last, changes nothing.
 */
const APPLY = `
  INSERT INTO capacity_network_changes AS t (kind, target, part, day, value, sequence)
  SELECT u.kind, u.target, u.part, u.day, u.value, $2::bigint
  FROM jsonb_to_recordset($1::jsonb) AS u(kind text, target text, part text, day date, value integer)
  ORDER BY u.kind, u.target, u.part, u.day
  ON CONFLICT (kind, target, part, day) DO UPDATE SET value = EXCLUDED.value, sequence = EXCLUDED.sequence
  WHERE t.sequence < EXCLUDED.sequence
  RETURNING ${COLUMNS}`

const KINDS: ReadonlySet<string> = new Set<ChangeKind>([
  "HOLIDAY",
  "BLOCKED",
  "PICKING_CAPACITY",
  "NODE_DISPATCH_CAPACITY",
  "ROUTE_CAPACITY",
  "ZONE_WINDOW_CAPACITY"
])

const isKind = (value: unknown): value is ChangeKind => typeof value === "string" && KINDS.has(value)

const rowsOf = (values: ReadonlyArray<ReadonlyArray<unknown>>, operation: string): Effect.Effect<ReadonlyArray<ChangeRow>, StoreError> => {
  const rows: Array<ChangeRow> = []
  for (const row of values) {
    const [kind, target, part, date, value, sequence] = row
    if (
      !isKind(kind) || typeof target !== "string" || typeof part !== "string" || typeof date !== "string" ||
      (value !== null && typeof value !== "number") || typeof sequence !== "string"
    ) {
      return Effect.fail(new StoreError({ operation, message: `unexpected network change row ${JSON.stringify(row)}` }))
    }
    rows.push({ kind, target, part, date, value, sequence: Number(sequence) })
  }
  return Effect.succeed(rows)
}

/**
 * capacity_network_changes (NetworkChangeSchema.ts): the feed's batches, and what replicas load.
 * Part of CapacityRepository (every process that holds the network holds its changes).
 */
export const networkChangeStatements = (sql: SqlClient.SqlClient) => {
  /** One statement for a batch's rows (all of one sequence); answers the rows it set. */
  const applyNetworkChanges = (sequence: number, rows: ReadonlyArray<ChangeRow>) =>
    sql.unsafe(APPLY, [
      JSON.stringify(rows.map((row) => ({ kind: row.kind, target: row.target, part: row.part, day: row.date, value: row.value }))),
      String(sequence)
    ]).values.pipe(
      Effect.flatMap((values) => rowsOf(values, "applyNetworkChanges")),
      storeOperation("applyNetworkChanges")
    )

  /** Every row of a date on or after `from` (YYYY-MM-DD): earlier ones can no longer change an answer. */
  const loadNetworkChanges = (from: string) =>
    sql.unsafe(`SELECT ${COLUMNS} FROM capacity_network_changes AS t WHERE t.day >= $1::date`, [from]).values.pipe(
      Effect.flatMap((values) => rowsOf(values, "loadNetworkChanges")),
      storeOperation("loadNetworkChanges")
    )

  return { applyNetworkChanges, loadNetworkChanges } as const
}
