import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { storeOperation, type StoreError } from "./StoreError.ts"

/** Orders found by when they were placed, usage rows by their day (network changes have that index already). */
const statements: ReadonlyArray<string> = [
  `CREATE INDEX capacity_orders_created ON capacity_orders (created_at)`,
  `CREATE INDEX capacity_usage_day ON capacity_usage (day)`
]

export const migration0015 = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.forEach(statements, (statement) => sql.unsafe(statement), { discard: true })
)

const decodeCount = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ forgotten: Schema.Number })))

/**
 * How long the capacity store keeps the past: orders, the ledger of what each took, the usage of
 * each resource a day, and the network changes of a day. The engine reads none of it before
 * yesterday; a checkout placing hundreds of orders a second would otherwise grow these tables,
 * and the work of every statement on them, without end.
 */
export class CapacityRetention extends Context.Service<CapacityRetention>()("@retail/store/CapacityRetention", {
  make: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const count = (operation: string) => <E, R>(statement: Effect.Effect<ReadonlyArray<unknown>, E, R>) =>
      statement.pipe(
        Effect.flatMap(decodeCount),
        Effect.map((rows) => rows[0]?.forgotten ?? 0),
        storeOperation(operation)
      )

    /**
     * Forgets orders placed before the day `before` (YYYY-MM-DD) none of whose uses falls on or after
     * it, oldest first, at most `limit`, with their ledger rows; how many. An order another
     * transaction holds (its release, a replay of its id) is skipped, not waited for. Its id is then
     * free: the same id sent again is a new order.
     */
    const forgetOrders = (before: string, limit: number): Effect.Effect<number, StoreError> =>
      sql`
        WITH due AS (
          SELECT o.order_id FROM capacity_orders o
          WHERE o.created_at < ${before}::date
            AND NOT EXISTS (SELECT 1 FROM capacity_ledger l WHERE l.order_id = o.order_id AND l.day >= ${before}::date)
          ORDER BY o.created_at
          LIMIT ${Math.max(1, Math.floor(limit))}
          FOR UPDATE OF o SKIP LOCKED
        ), gone AS (
          DELETE FROM capacity_orders o USING due WHERE o.order_id = due.order_id RETURNING o.order_id
        )
        SELECT count(*)::int AS forgotten FROM gone
      `.pipe(count("forgetCapacityOrders"))

    /** Forgets at most `limit` usage rows of days before `before`; how many. */
    const forgetUsage = (before: string, limit: number): Effect.Effect<number, StoreError> =>
      sql`
        WITH due AS (
          SELECT kind, code, slot, day FROM capacity_usage WHERE day < ${before}::date LIMIT ${Math.max(1, Math.floor(limit))} FOR UPDATE SKIP LOCKED
        ), gone AS (
          DELETE FROM capacity_usage u USING due
          WHERE u.kind = due.kind AND u.code = due.code AND u.slot = due.slot AND u.day = due.day
          RETURNING 1
        )
        SELECT count(*)::int AS forgotten FROM gone
      `.pipe(count("forgetCapacityUsage"))

    /** Forgets at most `limit` network changes (capacity overrides, holidays, blocked windows) of days before `before`; how many. */
    const forgetNetworkChanges = (before: string, limit: number): Effect.Effect<number, StoreError> =>
      sql`
        WITH due AS (
          SELECT kind, target, part, day FROM capacity_network_changes WHERE day < ${before}::date LIMIT ${Math.max(1, Math.floor(limit))} FOR UPDATE SKIP LOCKED
        ), gone AS (
          DELETE FROM capacity_network_changes c USING due
          WHERE c.kind = due.kind AND c.target = due.target AND c.part = due.part AND c.day = due.day
          RETURNING 1
        )
        SELECT count(*)::int AS forgotten FROM gone
      `.pipe(count("forgetNetworkChanges"))

    return { forgetOrders, forgetUsage, forgetNetworkChanges } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
