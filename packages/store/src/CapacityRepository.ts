import { SqlClient } from "@effect/sql"
import { type CapacityUse, resourceKey } from "@retail/capacity"
import { Effect, Option, Schema } from "effect"
import { columnsOf, LedgerRow, UsageRow, type UsageState, statesOfRows } from "./CapacityRows.ts"
import { sqlDefectsAsFailures, storeOperation } from "./StoreError.ts"

/** A use of an order with the capacity its resource has now (from the current network). */
export interface LimitedUse {
  readonly use: CapacityUse
  readonly total: number
}

/** The conditional update found no room: the order is rolled back whole. */
export class CapacityExhausted extends Schema.TaggedError<CapacityExhausted>()("CapacityExhausted", {
  kind: Schema.String,
  code: Schema.String,
  slot: Schema.String,
  date: Schema.String,
  requested: Schema.Number,
  total: Schema.Number
}) {}

export type ConsumeOutcome =
  | { readonly _tag: "Applied"; readonly usage: ReadonlyArray<UsageState> }
  | { readonly _tag: "AlreadyApplied" }

export interface StoredNetwork {
  readonly version: number
  readonly document: unknown
}

const NetworkRow = Schema.Struct({ version: Schema.NumberFromString, document: Schema.Unknown })
const decodeNetworkRows = Schema.decodeUnknown(Schema.Array(NetworkRow))
const decodeUsageRows = Schema.decodeUnknown(Schema.Array(UsageRow))
const decodeLedgerRows = Schema.decodeUnknown(Schema.Array(LedgerRow))

/** Uses of one order on the same resource and date add up; sorted so every transaction locks rows in one order. */
const merge = (uses: ReadonlyArray<LimitedUse>): ReadonlyArray<LimitedUse> => {
  const byKey = new Map<string, LimitedUse>()
  for (const item of uses) {
    const key = `${resourceKey(item.use.resource)}|${item.use.date}`
    const previous = byKey.get(key)
    byKey.set(key, previous === undefined ? item : { use: { ...item.use, amount: previous.use.amount + item.use.amount }, total: item.total })
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, item]) => item)
}

export class CapacityRepository extends Effect.Service<CapacityRepository>()("@retail/store/CapacityRepository", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const usageColumns = sql`kind, code, slot, to_char(day, 'YYYY-MM-DD') AS day, used, revision`

    const loadNetwork = sql`SELECT version::text AS version, document FROM capacity_network WHERE id = 1`.pipe(
        Effect.flatMap(decodeNetworkRows),
        Effect.map((rows): Option.Option<StoredNetwork> => Option.fromNullable(rows[0])),
        storeOperation("loadNetwork")
      )

    /** Stores the first network of an empty database; an existing one is kept. */
    const initNetwork = (document: unknown) =>
      sql`INSERT INTO capacity_network (id, version, document) VALUES (1, 1, ${JSON.stringify(document)}::jsonb)
          ON CONFLICT (id) DO NOTHING`.pipe(storeOperation("initNetwork"), Effect.asVoid)

    /** Replaces the network; answers the new version. */
    const saveNetwork = (document: unknown) =>
      sql`INSERT INTO capacity_network (id, version, document) VALUES (1, 1, ${JSON.stringify(document)}::jsonb)
          ON CONFLICT (id) DO UPDATE SET version = capacity_network.version + 1, document = EXCLUDED.document, updated_at = now()
          RETURNING version::text AS version, document`.pipe(
        Effect.flatMap(decodeNetworkRows),
        Effect.map((rows) => rows[0]?.version ?? 1),
        storeOperation("saveNetwork")
      )

    /**
     * Every usage row from a date on (older days no longer matter to evaluation), rows back at zero
     * included: a release to zero is a change, and its revision says so.
     */
    const loadUsage = (fromDate: string) =>
      sql`SELECT ${usageColumns} FROM capacity_usage WHERE day >= ${fromDate}::date`.pipe(
        Effect.flatMap(decodeUsageRows),
        Effect.map(statesOfRows),
        storeOperation("loadUsage")
      )

    /** Usage of the resources of some kinds under one code (one actor's), from a date on. */
    const loadUsageOf = (kinds: ReadonlyArray<string>, code: string, fromDate: string) =>
      sql`SELECT ${usageColumns} FROM capacity_usage
          WHERE kind IN ${sql.in(kinds)} AND code = ${code} AND day >= ${fromDate}::date`.pipe(
        Effect.flatMap(decodeUsageRows),
        Effect.map(statesOfRows),
        storeOperation("loadUsageOf")
      )

    /**
     * Takes every use of an order or none: each one is a conditional UPDATE (`used + n <= total`)
     * that holds the row lock until commit, so concurrent orders in any process cannot oversell.
     */
    const consume = (orderId: string, uses: ReadonlyArray<LimitedUse>) =>
      sql.withTransaction(
        Effect.gen(function*() {
          const inserted = yield* sql`INSERT INTO capacity_orders (order_id) VALUES (${orderId})
                                      ON CONFLICT (order_id) DO NOTHING RETURNING order_id`
          if (inserted.length === 0) return { _tag: "AlreadyApplied" } as ConsumeOutcome
          const usage: Array<UsageState> = []
          for (const { total, use } of merge(uses)) {
            const { code, kind, slot } = columnsOf(use.resource)
            yield* sql`INSERT INTO capacity_usage (kind, code, slot, day, used)
                       VALUES (${kind}, ${code}, ${slot}, ${use.date}::date, 0) ON CONFLICT DO NOTHING`
            const updated = yield* sql<{ used: number; revision: number }>`UPDATE capacity_usage
              SET used = used + ${use.amount}, revision = revision + 1
              WHERE kind = ${kind} AND code = ${code} AND slot = ${slot} AND day = ${use.date}::date
                AND used + ${use.amount} <= ${total}
              RETURNING used, revision`
            const row = updated[0]
            if (row === undefined) {
              return yield* new CapacityExhausted({ kind, code, slot, date: use.date, requested: use.amount, total })
            }
            yield* sql`INSERT INTO capacity_ledger (order_id, kind, code, slot, day, units)
                       VALUES (${orderId}, ${kind}, ${code}, ${slot}, ${use.date}::date, ${use.amount})`
            usage.push({ resource: use.resource, date: use.date, used: row.used, revision: row.revision })
          }
          return { _tag: "Applied", usage } as ConsumeOutcome
        })
      ).pipe(sqlDefectsAsFailures, Effect.catchIf((e) => e._tag !== "CapacityExhausted", storeOperation("consumeCapacity")))

    /** Gives back what an order took; none when the order is unknown (already released). */
    const release = (orderId: string) =>
      sql.withTransaction(
        Effect.gen(function*() {
          const rows = yield* sql`SELECT order_id AS "orderId", kind, code, slot, to_char(day, 'YYYY-MM-DD') AS day, units
                                  FROM capacity_ledger WHERE order_id = ${orderId} ORDER BY kind, code, slot, day`.pipe(
            Effect.flatMap(decodeLedgerRows)
          )
          const deleted = yield* sql`DELETE FROM capacity_orders WHERE order_id = ${orderId} RETURNING order_id`
          if (deleted.length === 0) return Option.none<ReadonlyArray<UsageState>>()
          const usage: Array<UsageRow> = []
          for (const row of rows) {
            const updated = yield* sql`UPDATE capacity_usage SET used = GREATEST(used - ${row.units}, 0), revision = revision + 1
              WHERE kind = ${row.kind} AND code = ${row.code} AND slot = ${row.slot} AND day = ${row.day}::date
              RETURNING ${usageColumns}`.pipe(Effect.flatMap(decodeUsageRows))
            usage.push(...updated)
          }
          return Option.some(statesOfRows(usage))
        })
      ).pipe(storeOperation("releaseCapacity"))

    /** A node's picking and dispatch usage and the orders behind it, between two dates (inclusive). */
    const nodeLedger = (node: string, from: string, to: string) =>
      Effect.all({
        usage: sql`SELECT ${usageColumns} FROM capacity_usage
                   WHERE code = ${node} AND kind IN ('PICKING', 'NODE_DISPATCH') AND day BETWEEN ${from}::date AND ${to}::date
                   ORDER BY day, kind, slot`.pipe(Effect.flatMap(decodeUsageRows)),
        orders: sql`SELECT order_id AS "orderId", kind, code, slot, to_char(day, 'YYYY-MM-DD') AS day, units
                    FROM capacity_ledger
                    WHERE code = ${node} AND kind IN ('PICKING', 'NODE_DISPATCH') AND day BETWEEN ${from}::date AND ${to}::date
                    ORDER BY day, kind, slot, order_id`.pipe(Effect.flatMap(decodeLedgerRows))
      }).pipe(storeOperation("nodeLedger"))

    return { loadNetwork, initNetwork, saveNetwork, loadUsage, loadUsageOf, consume, release, nodeLedger } as const
  })
}) {}
