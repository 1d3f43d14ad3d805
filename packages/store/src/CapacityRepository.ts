import { type CapacityUse, resourceKey } from "@retail/capacity"
import { Context, Effect, Layer, Option, Result, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { columnsOf, LedgerRow, UsageRow, type UsageState, statesOfRows } from "./CapacityRows.ts"
import { networkChangeStatements } from "./NetworkChangeStatements.ts"
import { storeOperation, toStoreError } from "./StoreError.ts"

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

/** The order id is held by an order with other content (`applied`, as stored); nothing was taken. */
export class OrderIdTaken extends Schema.TaggedError<OrderIdTaken>()("OrderIdTaken", {
  orderId: Schema.String,
  applied: Schema.Unknown
}) {}

/** One order of a group (`consumeMany`): what `consume` takes. */
export interface GroupedOrder {
  readonly orderId: string
  readonly uses: ReadonlyArray<LimitedUse>
  readonly request?: unknown
}

/**
 * What became of one order of a group: as `consume` answers it, or `Retry` when its id was released
 * while the group ran, or came earlier in the same group (send it alone, after the group).
 */
export type GroupedOutcome =
  | { readonly _tag: "Done"; readonly result: Result.Result<ConsumeOutcome, CapacityExhausted | OrderIdTaken> }
  | { readonly _tag: "Retry" }

export interface StoredNetwork {
  readonly version: number
  readonly document: unknown
}

const NetworkRow = Schema.Struct({ version: Schema.NumberFromString, document: Schema.Unknown })
const decodeNetworkRows = Schema.decodeUnknownEffect(Schema.Array(NetworkRow))
const decodeUsageRows = Schema.decodeUnknownEffect(Schema.Array(UsageRow))
const decodeLedgerRows = Schema.decodeUnknownEffect(Schema.Array(LedgerRow))
const OutcomeColumns = {
  kind: Schema.NullOr(Schema.String),
  code: Schema.NullOr(Schema.String),
  slot: Schema.NullOr(Schema.String),
  day: Schema.NullOr(Schema.String),
  used: Schema.NullOr(Schema.Number),
  revision: Schema.NullOr(Schema.Number)
}
const ConsumeRow = Schema.Struct({
  outcome: Schema.Literals(["APPLIED", "ALREADY_APPLIED", "CONFLICT", "EXHAUSTED"]),
  ...OutcomeColumns,
  amount: Schema.NullOr(Schema.Number),
  total: Schema.NullOr(Schema.Number),
  stored: Schema.Unknown
})
type ConsumeRow = typeof ConsumeRow.Type
/** What capacity_consume answers (CapacitySchema.ts): one ALREADY_APPLIED, CONFLICT or EXHAUSTED row, or the APPLIED usage rows. */
const decodeConsumeRows = Schema.decodeUnknownEffect(Schema.Array(ConsumeRow))
/** What capacity_consume_many answers: capacity_consume's rows of each order, by its index in the group, or one RETRY row. */
const decodeGroupRows = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({
  ...ConsumeRow.fields,
  ord: Schema.Number,
  outcome: Schema.Literals(["APPLIED", "ALREADY_APPLIED", "CONFLICT", "EXHAUSTED", "RETRY"])
})))
/** What capacity_release answers: one UNKNOWN row, or the RELEASED usage rows. */
const decodeReleaseRows = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({
  outcome: Schema.Literals(["RELEASED", "UNKNOWN"]),
  ...OutcomeColumns
})))

const UsageOutcome = Schema.Struct(OutcomeColumns)

/** A changed usage row of either answer. */
const usageOf = (row: typeof UsageOutcome.Type): ReadonlyArray<UsageRow> =>
  row.kind === null || row.code === null || row.slot === null || row.day === null || row.used === null || row.revision === null
    ? []
    : [{ kind: row.kind, code: row.code, slot: row.slot, day: row.day, used: row.used, revision: row.revision }]

/**
 * Uses of one order on the same resource and date add up: capacity_consume takes one row per
 * resource and day (it orders its locks itself).
 */
const merge = (uses: ReadonlyArray<LimitedUse>): ReadonlyArray<LimitedUse> => {
  const byKey = new Map<string, LimitedUse>()
  for (const item of uses) {
    const key = `${resourceKey(item.use.resource)}|${item.use.date}`
    const previous = byKey.get(key)
    byKey.set(key, previous === undefined ? item : { use: { ...item.use, amount: previous.use.amount + item.use.amount }, total: item.total })
  }
  return [...byKey.values()]
}

/** The order's uses as capacity_consume takes them; a use past its total never fits, and is refused before any statement. */
const wantedOf = (uses: ReadonlyArray<LimitedUse>) => {
  const wanted = merge(uses).map(({ total, use }) => ({ ...columnsOf(use.resource), day: use.date, amount: use.amount, total }))
  // Also, the statement's integer `used + amount` could overflow (a 500).
  const over = wanted.find((want) => want.amount > want.total)
  return over === undefined
    ? Result.succeed(wanted)
    : Result.fail(new CapacityExhausted({ kind: over.kind, code: over.code, slot: over.slot, date: over.day, requested: over.amount, total: over.total }))
}

/** One order's answer rows (capacity_consume's, or its rows of a group) as its outcome. */
const outcomeOf = (orderId: string, rows: ReadonlyArray<Omit<ConsumeRow, "outcome"> & { readonly outcome: string }>): Result.Result<ConsumeOutcome, CapacityExhausted | OrderIdTaken> => {
  const [first] = rows
  if (first?.outcome === "ALREADY_APPLIED") return Result.succeed({ _tag: "AlreadyApplied" })
  if (first?.outcome === "CONFLICT") return Result.fail(new OrderIdTaken({ orderId, applied: first.stored }))
  if (first?.outcome === "EXHAUSTED") {
    return Result.fail(
      new CapacityExhausted({
        kind: first.kind ?? "",
        code: first.code ?? "",
        slot: first.slot ?? "",
        date: first.day ?? "",
        requested: first.amount ?? 0,
        total: first.total ?? 0
      })
    )
  }
  return Result.succeed({ _tag: "Applied", usage: statesOfRows(rows.flatMap(usageOf)) })
}

export class CapacityRepository extends Context.Service<CapacityRepository>()("@retail/store/CapacityRepository", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const usageColumns = sql`kind, code, slot, to_char(day, 'YYYY-MM-DD') AS day, used, revision`

    const loadNetwork = sql`SELECT version::text AS version, document FROM capacity_network WHERE id = 1`.pipe(
        Effect.flatMap(decodeNetworkRows),
        Effect.map((rows): Option.Option<StoredNetwork> => Option.fromNullishOr(rows[0])),
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
     * Takes every use of an order or none, in one statement whatever the number of uses:
     * `capacity_consume` (CapacitySchema.ts) records the order with its `request` (a conflict
     * means it was applied already: the same request again, or OrderIdTaken with the stored one),
     * locks the usage rows it needs in one fixed order (no deadlocks between orders), and adds
     * each use only if every one still has room; concurrent orders in any process therefore
     * cannot oversell, nor apply one order id twice. Without a request, any repeat is a retry.
     */
    const consume = (orderId: string, uses: ReadonlyArray<LimitedUse>, request?: unknown) =>
      Effect.gen(function*() {
        const wanted = yield* Effect.fromResult(wantedOf(uses))
        const asked = request === undefined ? null : JSON.stringify(request)
        const rows = yield* Effect.flatMap(
          sql`SELECT * FROM capacity_consume(${orderId}, ${JSON.stringify(wanted)}::jsonb, ${asked}::jsonb)`,
          decodeConsumeRows
        )
        return yield* Effect.fromResult(outcomeOf(orderId, rows))
      }).pipe(
        Effect.catchIf(
          (e) => e._tag !== "CapacityExhausted" && e._tag !== "OrderIdTaken",
          (e) => Effect.fail(toStoreError("consumeCapacity")(e))
        )
      )

    /**
     * Orders that arrived together, taken in one statement: `capacity_consume_many` (CapacitySchema.ts)
     * shares one transaction, round trip and call among them, and answers each as `consume` would,
     * in the order given (an order sees the usage the orders before it left). An order id already
     * in the group is answered Retry (take it after this group). The statement failing fails them
     * all, and nothing of it is kept.
     */
    const consumeMany = (orders: ReadonlyArray<GroupedOrder>) =>
      Effect.gen(function*() {
        const outcomes: Array<GroupedOutcome> = orders.map(() => ({ _tag: "Retry" }))
        const sent: Array<{ readonly index: number; readonly orderId: string }> = []
        const body: Array<unknown> = []
        const ids = new Set<string>()
        orders.forEach((order, index) => {
          // A second copy of an id would be taken as another order: it is sent back, to go after this group.
          if (ids.has(order.orderId)) return
          ids.add(order.orderId)
          const wanted = wantedOf(order.uses)
          if (Result.isFailure(wanted)) {
            outcomes[index] = { _tag: "Done", result: Result.fail(wanted.failure) }
            return
          }
          sent.push({ index, orderId: order.orderId })
          // JSON.stringify leaves an undefined request out: NULL, as consume stores it; null stays JSON null, as there.
          body.push({ orderId: order.orderId, request: order.request, wanted: wanted.success })
        })
        if (sent.length > 0) {
          const rows = yield* Effect.flatMap(sql`SELECT * FROM capacity_consume_many(${JSON.stringify(body)}::jsonb)`, decodeGroupRows)
          const rowsOf = sent.map((): Array<typeof rows[number]> => [])
          for (const row of rows) rowsOf[row.ord]?.push(row)
          sent.forEach(({ index, orderId }, ord) => {
            const mine = rowsOf[ord] ?? []
            outcomes[index] = mine[0]?.outcome === "RETRY"
              ? { _tag: "Retry" }
              : { _tag: "Done", result: outcomeOf(orderId, mine) }
          })
        }
        return outcomes
      }).pipe(storeOperation("consumeCapacityGroup"))

    /**
     * Gives back what an order took; none when the order is unknown (already released). One
     * statement: `capacity_release` removes the order (its ledger rows with it), locks the rows it
     * held in the order `consume` locks them, and lowers them.
     */
    const release = (orderId: string) =>
      Effect.flatMap(sql`SELECT * FROM capacity_release(${orderId})`, decodeReleaseRows).pipe(
        Effect.map((rows) =>
          rows[0]?.outcome === "UNKNOWN"
            ? Option.none<ReadonlyArray<UsageState>>()
            : Option.some(statesOfRows(rows.flatMap(usageOf)))
        ),
        storeOperation("releaseCapacity")
      )

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

    const { applyNetworkChanges, loadNetworkChanges } = networkChangeStatements(sql)

    return {
      loadNetwork,
      initNetwork,
      saveNetwork,
      loadUsage,
      loadUsageOf,
      consume,
      consumeMany,
      release,
      nodeLedger,
      applyNetworkChanges,
      loadNetworkChanges
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
