import { buildSnapshot, capacityLimits, decodeNetwork, ledgerFromUses } from "@retail/capacity"
import { makeLoadValidator, Product } from "@retail/domain"
import { CapacityRepository, Database, ProductRepository, resourceOf } from "@retail/store"
import { Effect, Layer, ManagedRuntime, Option, Result, Schema } from "effect"
import { SqlClient } from "effect/sql"
import type { SentLoad } from "./LoadTraffic.ts"
import { forgetCompanies } from "../support/ForgetRows.ts"

export interface OrdersToCheck {
  /** Order ids of this run start with it. */
  readonly prefix: string
  /** Those applied and not released. */
  readonly held: ReadonlySet<string>
  /** Days this run's orders may have taken capacity on (inclusive). */
  readonly fromDay: string
  readonly toDay: string
}

/** An order's ledger rows, as the end check compares them. */
export type LedgerRows = ReadonlyArray<{ readonly kind: string; readonly code: string; readonly slot: string; readonly day: string; readonly units: number }>

/** The canonical text of an order's ledger rows (sorted), compared with the database's. */
export const ledgerText = (rows: LedgerRows): string =>
  rows.map((row) => `${row.kind}|${row.code}|${row.slot}|${row.day}|${row.units}`).sort().join(";")

export interface Verified {
  readonly loads: number
  readonly productsCounted: number
  readonly productsCompared: number
  readonly capacityRows: number
  readonly ordersHeld: number
  /** Every mismatch found: a lost or extra product, a stored product unlike the one sent, an oversold resource. */
  readonly problems: ReadonlyArray<string>
}

const Counted = Schema.Array(Schema.Struct({ company: Schema.String, process_code: Schema.String, n: Schema.Number }))
const OrderIds = Schema.Array(Schema.Struct({ order_id: Schema.String }))
const Used = Schema.Array(Schema.Struct({ kind: Schema.String, code: Schema.String, slot: Schema.String, day: Schema.String, used: Schema.Number }))
const OrderRows = Schema.Array(Schema.Struct({ order_id: Schema.String, kind: Schema.String, code: Schema.String, slot: Schema.String, day: Schema.String, units: Schema.Number }))
const Units = Schema.Array(Schema.Struct({ kind: Schema.String, code: Schema.String, slot: Schema.String, day: Schema.String, units: Schema.Number }))
const encodeProduct = Schema.encodeSync(Product)

/** The fields whose stored value is not the sent one, with both values. */
const differences = (stored: Readonly<Record<string, unknown>>, sent: Readonly<Record<string, unknown>>): ReadonlyArray<string> =>
  [...new Set([...Object.keys(stored), ...Object.keys(sent)])].flatMap((field) => {
    const [a, b] = [JSON.stringify(stored[field]), JSON.stringify(sent[field])]
    return a === b ? [] : [`${field}: stored ${a}, sent ${b}`]
  })

/** Indexes of the first and last product of a load that were sent valid: the content sample. */
const sampleOf = (load: SentLoad): ReadonlyArray<number> => {
  const valid = load.products.flatMap((_, i) => (load.invalid.has(i) ? [] : [i]))
  return [...new Set([valid[0], valid[valid.length - 1]])].flatMap((i) => (i === undefined ? [] : [i]))
}

/** Each load's products are its company's rows, written by that load, as many as it accepted. */
const countProducts = (loads: ReadonlyArray<SentLoad>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const problems: Array<string> = []
    const rows = loads.length === 0 ? [] : yield* sql`SELECT company, process_code::text AS process_code, count(*)::int AS n FROM products
      WHERE company IN ${sql.in(loads.map((l) => l.company))} GROUP BY company, process_code`.pipe(Effect.flatMap(Schema.decodeUnknownEffect(Counted)))
    let counted = 0
    for (const load of loads) {
      const expected = load.products.length - load.invalid.size
      const found = rows.filter((row) => row.company === load.company)
      const own = found.find((row) => row.process_code === load.processCode)?.n ?? 0
      counted += own
      if (own !== expected || found.length > (own > 0 ? 1 : 0)) {
        problems.push(`${load.kind} load ${load.processCode}: ${own} of ${expected} accepted products in PostgreSQL${found.length > 1 ? ` (and rows of other loads: ${JSON.stringify(found)})` : ""}`)
      }
    }
    return { counted, problems }
  })

/** The sample of each load, read back: the document as the intake validated it, and its child rows. */
const compareSample = (loads: ReadonlyArray<SentLoad>) =>
  Effect.gen(function*() {
    const repository = yield* ProductRepository
    const problems: Array<string> = []
    let compared = 0
    for (const load of loads) {
      const validator = makeLoadValidator(load.company)
      for (const index of sampleOf(load)) {
        const expected = validator.validate(load.products[index], index)
        if (Result.isFailure(expected)) {
          problems.push(`${load.kind}: product ${index} sent valid does not validate in-process: ${expected.failure.error}`)
          continue
        }
        const product = expected.success
        const stored = yield* repository.findProduct(load.company, product.productCode)
        const children = yield* repository.findChildren(load.company, product.productCode)
        compared++
        if (Option.isNone(stored)) problems.push(`${load.kind} load ${load.processCode}: product ${product.productCode} is not in PostgreSQL`)
        else {
          const differing = differences(encodeProduct(stored.value), encodeProduct(product))
          if (differing.length > 0) problems.push(`${load.kind} load ${load.processCode}: product ${product.productCode} stored unlike it was sent: ${differing.join("; ").slice(0, 400)}`)
        }
        const rows = [children.barcodes.length, children.hierarchies.length, children.attributes.length]
        const lists = [product.barcodes.length, product.hierarchies.length, product.lstAttributes.length]
        if (rows.join() !== lists.join()) problems.push(`${load.kind} load ${load.processCode}: product ${product.productCode} has ${rows.join("/")} barcode/hierarchy/attribute rows for ${lists.join("/")} sent`)
      }
    }
    return { compared, problems }
  })

/** No resource used beyond its total (from the stored network), usage equal to the ledger behind it, and this run's held orders exactly. */
const checkCapacity = (orders: OrdersToCheck) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repository = yield* CapacityRepository
    const problems: Array<string> = []
    const stored = yield* repository.loadNetwork
    if (Option.isNone(stored)) return { rows: 0, held: 0, oversold: 0, problems: ["no capacity network in the database"] }
    const document = decodeNetwork(stored.value.document)
    if (Result.isFailure(document)) return { rows: 0, held: 0, oversold: 0, problems: [`the stored network does not decode: ${document.failure.message}`] }
    const limits = capacityLimits(buildSnapshot(document.success, ledgerFromUses([])))
    const used = yield* sql`SELECT kind, code, slot, to_char(day, 'YYYY-MM-DD') AS day, used FROM capacity_usage
      WHERE day BETWEEN ${orders.fromDay}::date AND ${orders.toDay}::date`.pipe(Effect.flatMap(Schema.decodeUnknownEffect(Used)))
    const units = yield* sql`SELECT kind, code, slot, to_char(day, 'YYYY-MM-DD') AS day, sum(units)::int AS units FROM capacity_ledger
      WHERE day BETWEEN ${orders.fromDay}::date AND ${orders.toDay}::date GROUP BY kind, code, slot, day`.pipe(Effect.flatMap(Schema.decodeUnknownEffect(Units)))
    const key = (row: { kind: string; code: string; slot: string; day: string }) => `${row.kind}|${row.code}|${row.slot}|${row.day}`
    const ledger = new Map(units.map((row) => [key(row), row.units]))
    let oversold = 0
    for (const row of used) {
      const resource = resourceOf(row)
      const total = resource === undefined ? undefined : limits(resource, row.day)
      if (total === undefined) problems.push(`capacity ${key(row)}: not a resource of the network`)
      else if (row.used > total) {
        oversold++
        problems.push(`capacity ${key(row)}: oversold, ${row.used} used of ${total}`)
      }
      if (row.used !== (ledger.get(key(row)) ?? 0)) problems.push(`capacity ${key(row)}: ${row.used} used but ${ledger.get(key(row)) ?? 0} in the ledger`)
      ledger.delete(key(row))
    }
    for (const [orphan, n] of ledger) problems.push(`capacity ${orphan}: ${n} units in the ledger without a usage row`)
    const ids = yield* sql`SELECT order_id FROM capacity_orders WHERE order_id LIKE ${`${orders.prefix}%`}`.pipe(Effect.flatMap(Schema.decodeUnknownEffect(OrderIds)))
    const inDatabase = new Set(ids.map((row) => row.order_id))
    const missing = [...orders.held].filter((id) => !inDatabase.has(id))
    const extra = [...inDatabase].filter((id) => !orders.held.has(id))
    if (missing.length > 0) problems.push(`${missing.length} orders applied and not released are not in capacity_orders: ${missing.slice(0, 5).join(", ")}`)
    if (extra.length > 0) problems.push(`${extra.length} orders in capacity_orders were refused or released: ${extra.slice(0, 5).join(", ")}`)
    return { rows: used.length, held: inDatabase.size, oversold, problems }
  })

/** Every order of `ledgerOf` holds exactly its ledger rows (by its canonical text, `ledgerText`). */
const checkOrderLedgers = (prefix: string, ledgerOf: ReadonlyMap<string, string>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql`SELECT order_id, kind, code, slot, to_char(day, 'YYYY-MM-DD') AS day, units FROM capacity_ledger
      WHERE order_id LIKE ${`${prefix}%`}`.pipe(Effect.flatMap(Schema.decodeUnknownEffect(OrderRows)))
    const byOrder = new Map<string, Array<(typeof rows)[number]>>()
    for (const row of rows) {
      const list = byOrder.get(row.order_id)
      if (list === undefined) byOrder.set(row.order_id, [row])
      else list.push(row)
    }
    const problems: Array<string> = []
    let wrong = 0
    for (const [orderId, expected] of ledgerOf) {
      const found = ledgerText(byOrder.get(orderId) ?? [])
      if (found === expected) continue
      wrong++
      if (problems.length < 5) problems.push(`order ${orderId} answered 200 holds ledger rows ${found === "" ? "none" : found}, expected ${expected}`)
    }
    if (wrong > problems.length) problems.push(`${wrong - problems.length} more orders without exactly their ledger rows`)
    return { wrong, problems }
  })

/**
 * The end check, in the database the server used (PostgreSQL at `url`, or the embedded one's data
 * folder once the server has stopped): every accepted product of every load, a sample compared
 * field by field, and the capacity ledger.
 */
export const verifyInDatabase = async (url: string | undefined, dataDir: string, loads: ReadonlyArray<SentLoad>, orders: OrdersToCheck): Promise<Verified> => {
  const runtime = ManagedRuntime.make(
    Layer.mergeAll(ProductRepository.layer, CapacityRepository.layer).pipe(
      Layer.provideMerge(Database.layer({ url: Option.fromNullishOr(url), dataDir, poolSize: 2 }))
    )
  )
  try {
    return await runtime.runPromise(Effect.gen(function*() {
      const products = yield* countProducts(loads)
      const sample = yield* compareSample(loads)
      const capacity = yield* checkCapacity(orders)
      return {
        loads: loads.length,
        productsCounted: products.counted,
        productsCompared: sample.compared,
        capacityRows: capacity.rows,
        ordersHeld: capacity.held,
        problems: [...products.problems, ...sample.problems, ...capacity.problems]
      }
    }))
  } finally {
    await runtime.dispose()
  }
}

/** The products the loads wrote, deleted (support/ForgetRows.ts), with the tables vacuumed after. */
export const forgetSentLoads = async (url: string, loads: ReadonlyArray<SentLoad>): Promise<void> => {
  const runtime = ManagedRuntime.make(Database.layer({ url: Option.some(url), dataDir: "", poolSize: 1 }))
  try {
    await runtime.runPromise(forgetCompanies([...new Set(loads.map((load) => load.company))]))
  } finally {
    await runtime.dispose()
  }
}

export interface VerifiedOrders {
  readonly capacityRows: number
  readonly ordersHeld: number
  /** Usage rows above their total. */
  readonly oversold: number
  /** Orders answered 200 whose ledger rows are not exactly those they take. */
  readonly ordersWithoutLedger: number
  readonly problems: ReadonlyArray<string>
}

/**
 * The capacity part of the end check alone (the orders benchmark): no usage row above its total,
 * usage equal to the ledger behind it, this run's orders in capacity_orders exactly those held, and
 * each of `ledgerOf`'s orders holding exactly its ledger rows.
 */
export const verifyCapacityInDatabase = async (
  url: string | undefined,
  dataDir: string,
  orders: OrdersToCheck & { readonly ledgerOf: ReadonlyMap<string, string> }
): Promise<VerifiedOrders> => {
  const runtime = ManagedRuntime.make(CapacityRepository.layer.pipe(Layer.provideMerge(Database.layer({ url: Option.fromNullishOr(url), dataDir, poolSize: 2 }))))
  try {
    return await runtime.runPromise(Effect.gen(function*() {
      const capacity = yield* checkCapacity(orders)
      const ledgers = yield* checkOrderLedgers(orders.prefix, orders.ledgerOf)
      return {
        capacityRows: capacity.rows,
        ordersHeld: capacity.held,
        oversold: capacity.oversold,
        ordersWithoutLedger: ledgers.wrong,
        problems: [...capacity.problems, ...ledgers.problems]
      }
    }))
  } finally {
    await runtime.dispose()
  }
}
