import { SqlClient } from "@effect/sql"
import { type CapacityUse, resourceKey } from "@retail/capacity"
import { Effect, Option, Schema } from "effect"
import { columnsOf, LedgerRow, UsageRow, type UsageState, statesOfRows } from "./CapacityRows.ts"
import { sqlDefectsAsFailures, storeOperation, toStoreError } from "./StoreError.ts"

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
/** An order's ledger rows as it is deleted; one row of nulls for an order that took nothing. */
const decodeHeldRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({
  orderId: Schema.String,
  kind: Schema.NullOr(Schema.String),
  code: Schema.NullOr(Schema.String),
  slot: Schema.NullOr(Schema.String),
  day: Schema.NullOr(Schema.String),
  units: Schema.NullOr(Schema.Number)
})))

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
     * Takes every use of an order or none, in three statements whatever the number of uses (each
     * round trip costs the server more than the SQL does): the order row (a conflict means it was
     * applied already), the usage rows it needs, then one statement that locks those rows in a
     * fixed order (no deadlocks between orders), adds each use where `used + n <= total` still
     * holds and records what it took; a use without room rolls the whole order back. Concurrent
     * orders in any process therefore cannot oversell.
     */
    const consume = (orderId: string, uses: ReadonlyArray<LimitedUse>) =>
      sql.withTransaction(
        Effect.gen(function*() {
          const inserted = yield* sql`INSERT INTO capacity_orders (order_id) VALUES (${orderId})
                                      ON CONFLICT (order_id) DO NOTHING RETURNING order_id`
          if (inserted.length === 0) return { _tag: "AlreadyApplied" } as ConsumeOutcome
          const wanted = merge(uses).map(({ total, use }) => ({ ...columnsOf(use.resource), day: use.date, amount: use.amount, total }))
          const rows = JSON.stringify(wanted)
          yield* sql`INSERT INTO capacity_usage (kind, code, slot, day, used)
                     SELECT kind, code, slot, day, 0 FROM jsonb_to_recordset(${rows}::jsonb) AS w(kind text, code text, slot text, day date)
                     ORDER BY kind, code, slot, day
                     ON CONFLICT DO NOTHING`
          const taken = yield* sql`
            WITH wanted AS (
              SELECT * FROM jsonb_to_recordset(${rows}::jsonb) AS w(kind text, code text, slot text, day date, amount integer, total integer)
            ), locked AS MATERIALIZED (
              SELECT u.kind, u.code, u.slot, u.day FROM capacity_usage u JOIN wanted USING (kind, code, slot, day)
              ORDER BY u.kind, u.code, u.slot, u.day FOR UPDATE OF u
            ), taken AS (
              UPDATE capacity_usage u SET used = u.used + w.amount, revision = u.revision + 1
              FROM wanted w JOIN locked USING (kind, code, slot, day)
              WHERE u.kind = w.kind AND u.code = w.code AND u.slot = w.slot AND u.day = w.day AND u.used + w.amount <= w.total
              RETURNING u.kind, u.code, u.slot, u.day, u.used, u.revision, w.amount
            ), recorded AS (
              INSERT INTO capacity_ledger (order_id, kind, code, slot, day, units)
              SELECT ${orderId}, kind, code, slot, day, amount FROM taken
            )
            SELECT kind, code, slot, to_char(day, 'YYYY-MM-DD') AS day, used, revision FROM taken`.pipe(Effect.flatMap(decodeUsageRows))
          const missing = wanted.find((w) => !taken.some((t) => t.kind === w.kind && t.code === w.code && t.slot === w.slot && t.day === w.day))
          if (missing !== undefined) {
            return yield* new CapacityExhausted({
              kind: missing.kind,
              code: missing.code,
              slot: missing.slot,
              date: missing.day,
              requested: missing.amount,
              total: missing.total
            })
          }
          return { _tag: "Applied", usage: statesOfRows(taken) } as ConsumeOutcome
        })
      ).pipe(
        sqlDefectsAsFailures,
        Effect.catchIf((e) => e._tag !== "CapacityExhausted", (e) => Effect.fail(toStoreError("consumeCapacity")(e)))
      )

    /**
     * Gives back what an order took; none when the order is unknown (already released). Two
     * statements: the order goes (its ledger rows with it) answering what they held, then the
     * usage rows are locked in the order `consume` locks them and lowered.
     */
    const release = (orderId: string) =>
      sql.withTransaction(
        Effect.gen(function*() {
          const held = yield* sql`
            WITH gone AS (DELETE FROM capacity_orders WHERE order_id = ${orderId} RETURNING order_id)
            SELECT gone.order_id AS "orderId", l.kind, l.code, l.slot, to_char(l.day, 'YYYY-MM-DD') AS day, l.units
            FROM gone LEFT JOIN capacity_ledger l USING (order_id)`.pipe(Effect.flatMap(decodeHeldRows))
          if (held.length === 0) return Option.none<ReadonlyArray<UsageState>>()
          const given = JSON.stringify(held.filter((row) => row.kind !== null))
          const usage = yield* sql`
            WITH given AS (
              SELECT * FROM jsonb_to_recordset(${given}::jsonb) AS g(kind text, code text, slot text, day date, units integer)
            ), locked AS MATERIALIZED (
              SELECT u.kind, u.code, u.slot, u.day FROM capacity_usage u JOIN given USING (kind, code, slot, day)
              ORDER BY u.kind, u.code, u.slot, u.day FOR UPDATE OF u
            )
            UPDATE capacity_usage u SET used = GREATEST(u.used - g.units, 0), revision = u.revision + 1
            FROM given g JOIN locked USING (kind, code, slot, day)
            WHERE u.kind = g.kind AND u.code = g.code AND u.slot = g.slot AND u.day = g.day
            RETURNING u.kind, u.code, u.slot, to_char(u.day, 'YYYY-MM-DD') AS day, u.used, u.revision`.pipe(Effect.flatMap(decodeUsageRows))
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
