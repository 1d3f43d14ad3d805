import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { storeOperation, type StoreError } from "./StoreError.ts"

/**
 * Orders found by when they were placed, usage rows by their day (network changes have that index
 * already). Built CONCURRENTLY by the sweep, not by a migration: a migration runs in one
 * transaction, and a plain CREATE INDEX there would hold every order waiting while it reads a
 * table that, before this release, only grew.
 */
const INDEXES: ReadonlyArray<{ readonly name: string; readonly on: string }> = [
  { name: "capacity_orders_created", on: "capacity_orders (created_at)" },
  { name: "capacity_usage_day", on: "capacity_usage (day)" }
]

const decodeValidity = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ valid: Schema.Boolean })))
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
     * Builds the sweep's indexes without blocking writes, each once: an index left invalid by a build
     * that was cut off is dropped and built again. Another process building one at the same moment
     * makes this one fail (the sweep runs without it, only slower); the next sweep tries again.
     */
    const ensureIndexes: Effect.Effect<void, StoreError> = Effect.forEach(INDEXES, ({ name, on }) =>
      Effect.gen(function* () {
        const rows = yield* sql`SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = ${name}`.pipe(
          Effect.flatMap(decodeValidity)
        )
        if (rows[0]?.valid === true) return
        if (rows[0]?.valid === false) yield* sql.unsafe(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`)
        yield* sql.unsafe(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name} ON ${on}`)
      }).pipe(storeOperation("ensureCapacityRetentionIndexes")), { discard: true })

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
          WHERE o.created_at < (${before}::date)::timestamp AT TIME ZONE 'UTC'
            AND NOT EXISTS (SELECT 1 FROM capacity_ledger l WHERE l.order_id = o.order_id AND l.day >= ${before}::date)
          ORDER BY o.created_at
          LIMIT ${Math.max(1, Math.floor(limit))}
          FOR UPDATE OF o SKIP LOCKED
        ), gone AS (
          DELETE FROM capacity_orders o USING due WHERE o.order_id = due.order_id RETURNING o.order_id
        )
        SELECT count(*)::int AS forgotten FROM gone
      `.pipe(count("forgetCapacityOrders"))

    /** Forgets at most `limit` rows of `table` (whose primary key is `keys`) of days before `before`; how many. */
    const forgetDaysOf = (operation: string, table: string, keys: ReadonlyArray<string>) =>
    (before: string, limit: number): Effect.Effect<number, StoreError> =>
      sql`
        WITH due AS (
          SELECT ${sql.literal(keys.join(", "))} FROM ${sql(table)} WHERE day < ${before}::date
          LIMIT ${Math.max(1, Math.floor(limit))} FOR UPDATE SKIP LOCKED
        ), gone AS (
          DELETE FROM ${sql(table)} t USING due WHERE ${sql.literal(keys.map((key) => `t.${key} = due.${key}`).join(" AND "))}
          RETURNING 1
        )
        SELECT count(*)::int AS forgotten FROM gone
      `.pipe(count(operation))

    /** Usage rows of days before `before`, at most `limit`; how many. */
    const forgetUsage = forgetDaysOf("forgetCapacityUsage", "capacity_usage", ["kind", "code", "slot", "day"])
    /** Network changes (capacity overrides, holidays, blocked windows) of days before `before`, at most `limit`; how many. */
    const forgetNetworkChanges = forgetDaysOf("forgetNetworkChanges", "capacity_network_changes", ["kind", "target", "part", "day"])

    return { ensureIndexes, forgetOrders, forgetUsage, forgetNetworkChanges } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
