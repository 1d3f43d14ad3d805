import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { storeOperation, type StoreError } from "./StoreError.ts"

/**
 * Finished loads found by when they finished, and the rows of a load found by its code in the one
 * table whose only index was on unpublished ids.
 */
const statements: ReadonlyArray<string> = [
  `CREATE INDEX loads_finished ON loads (completed_at) WHERE status IN ('COMPLETED', 'COMPLETED_WITH_ERRORS', 'FAILED')`,
  `CREATE INDEX load_events_by_load ON load_events (process_code)`
]

export const migration0014 = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.forEach(statements, (statement) => sql.unsafe(statement), { discard: true })
)

const decodeForgotten = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ forgotten: Schema.Number })))

/**
 * How long the record of a finished load is kept: its row, its per-SKU errors, its batch ledger and
 * its status events. Products are the catalogue and are never forgotten; a load is history, and a
 * retailer feeding a whole catalogue every day would otherwise grow these tables without end.
 */
export class LoadRetention extends Context.Service<LoadRetention>()("@retail/store/LoadRetention", {
  make: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /**
     * Forgets loads that finished (COMPLETED, COMPLETED_WITH_ERRORS or FAILED) more than `olderThanMs`
     * ago by the database's clock, oldest first, with everything recorded of them, in one transaction;
     * how many it forgot. At most `limit` loads, taken while the rows of the loads before them (a
     * row per refused SKU, per batch, a few events) add up to less than `rowBudget`: at most the
     * budget plus one load's rows, and always the first load, however large. A load whose status
     * events are not yet published (the relay could not reach the queue) is kept until they are. Loads whose row another
     * transaction holds (another sweep, a late batch counting itself) are skipped, not waited for; a
     * late batch that counts itself only after its load was forgotten finds no row and is undone
     * (ProductRepository).
     */
    const forgetFinished = (olderThanMs: number, limit: number, rowBudget = 50_000): Effect.Effect<number, StoreError> =>
      sql`
        WITH due AS (
          SELECT l.process_code, l.completed_at, l.failed + COALESCE(l.batches, 0) + 4 AS held
          FROM loads l
          WHERE l.status IN ('COMPLETED', 'COMPLETED_WITH_ERRORS', 'FAILED')
            AND l.completed_at < now() - make_interval(secs => ${olderThanMs / 1000})
            AND NOT EXISTS (SELECT 1 FROM load_events e WHERE e.process_code = l.process_code AND e.published_at IS NULL)
          ORDER BY l.completed_at
          LIMIT ${Math.max(1, Math.floor(limit))}
          FOR UPDATE OF l SKIP LOCKED
        ), taken AS (
          SELECT process_code FROM (
            SELECT process_code, sum(held) OVER (ORDER BY completed_at, process_code) - held AS before FROM due
          ) d WHERE before < ${Math.max(1, Math.floor(rowBudget))}
        ), gone AS (
          DELETE FROM loads WHERE process_code IN (SELECT process_code FROM taken) RETURNING process_code
        ), errors AS (
          DELETE FROM load_errors t USING gone g WHERE t.process_code = g.process_code
        ), batches AS (
          DELETE FROM load_batches t USING gone g WHERE t.process_code = g.process_code
        ), events AS (
          DELETE FROM load_events t USING gone g WHERE t.process_code = g.process_code
        )
        SELECT count(*)::int AS forgotten FROM gone
      `.pipe(
        Effect.flatMap(decodeForgotten),
        Effect.map((rows) => rows[0]?.forgotten ?? 0),
        storeOperation("forgetFinishedLoads")
      )

    return { forgetFinished } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
