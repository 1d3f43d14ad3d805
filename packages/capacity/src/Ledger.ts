import { Data, Result } from "effect"

/** Which capacity a node pool counts against: one shared pool, or one per dispatch type. */
export type CapacityPool = "ALL" | "NORMAL" | "EXPRESS"

/** A capacity that is counted per date. */
export type CapacityResource =
  | { readonly _tag: "Picking"; readonly node: string; readonly pool: CapacityPool }
  | { readonly _tag: "NodeDispatch"; readonly node: string; readonly pool: CapacityPool }
  | { readonly _tag: "RouteDeparture"; readonly route: string }
  | { readonly _tag: "ZoneWindow"; readonly zone: string; readonly window: string }

/** Units (or deliveries, for a zone window) used on one resource on one `YYYY-MM-DD` date. */
export interface CapacityUse {
  readonly resource: CapacityResource
  readonly date: string
  readonly amount: number
}

/** An order placed for one dispatch: what it takes from the ledger. */
export interface Consumption {
  readonly orderId: string
  readonly uses: ReadonlyArray<CapacityUse>
}

/**
 * Capacity used so far, per resource and date, and the orders already applied (for idempotency).
 * Immutable: every transition returns a new ledger.
 */
export interface Ledger {
  readonly used: ReadonlyMap<string, CapacityUse>
  readonly orders: ReadonlyMap<string, Consumption>
}

export const emptyLedger: Ledger = { used: new Map(), orders: new Map() }

export const resourceKey = (resource: CapacityResource): string => {
  switch (resource._tag) {
    case "Picking":
    case "NodeDispatch":
      return `${resource._tag}|${resource.node}|${resource.pool}`
    case "RouteDeparture":
      return `${resource._tag}|${resource.route}`
    case "ZoneWindow":
      return `${resource._tag}|${resource.zone}|${resource.window}`
  }
}

const useKey = (resource: CapacityResource, date: string): string => `${resourceKey(resource)}|${date}`

export const usedOn = (ledger: Ledger, resource: CapacityResource, date: string): number =>
  ledger.used.get(useKey(resource, date))?.amount ?? 0

/** The total capacity of a resource on a date, from the network; undefined when the resource does not exist. */
export type CapacityLimits = (resource: CapacityResource, date: string) => number | undefined

export class CapacityExceeded extends Data.TaggedError("CapacityExceeded")<{
  readonly resource: CapacityResource
  readonly date: string
  readonly requested: number
  readonly used: number
  readonly total: number
}> {}

export class UnknownResource extends Data.TaggedError("UnknownResource")<{ readonly resource: CapacityResource }> {}

export type ConsumeError = CapacityExceeded | UnknownResource

/** Does every use fit the remaining capacity (uses on the same resource and date add up)? */
export const checkFits = (
  ledger: Ledger,
  limits: CapacityLimits,
  uses: ReadonlyArray<CapacityUse>
): Result.Result<void, ConsumeError> => {
  const pending = new Map<string, number>()
  for (const use of uses) {
    const total = limits(use.resource, use.date)
    if (total === undefined) return Result.fail(new UnknownResource({ resource: use.resource }))
    const key = useKey(use.resource, use.date)
    const used = (ledger.used.get(key)?.amount ?? 0) + (pending.get(key) ?? 0)
    if (used + use.amount > total) {
      return Result.fail(
        new CapacityExceeded({ resource: use.resource, date: use.date, requested: use.amount, used, total })
      )
    }
    pending.set(key, (pending.get(key) ?? 0) + use.amount)
  }
  return Result.void
}

const addUses = (used: ReadonlyMap<string, CapacityUse>, uses: ReadonlyArray<CapacityUse>, sign: 1 | -1) => {
  const next = new Map(used)
  for (const use of uses) {
    const key = useKey(use.resource, use.date)
    const amount = Math.max(0, (next.get(key)?.amount ?? 0) + sign * use.amount)
    if (amount === 0) next.delete(key)
    else next.set(key, { resource: use.resource, date: use.date, amount })
  }
  return next
}

/** Apply an order's uses if they all fit; applying the same order id again changes nothing. */
export const consume = (
  ledger: Ledger,
  limits: CapacityLimits,
  consumption: Consumption
): Result.Result<Ledger, ConsumeError> => {
  if (ledger.orders.has(consumption.orderId)) return Result.succeed(ledger)
  return Result.map(checkFits(ledger, limits, consumption.uses), () => ({
    used: addUses(ledger.used, consumption.uses, 1),
    orders: new Map(ledger.orders).set(consumption.orderId, consumption)
  }))
}

/** Give back what an order took (cancellation); an unknown order id changes nothing. */
export const release = (ledger: Ledger, orderId: string): Ledger => {
  const consumption = ledger.orders.get(orderId)
  if (consumption === undefined) return ledger
  const orders = new Map(ledger.orders)
  orders.delete(orderId)
  return { used: addUses(ledger.used, consumption.uses, -1), orders }
}

/** A ledger from stored usage rows (e.g. loaded from Postgres). */
export const ledgerFromUses = (uses: ReadonlyArray<CapacityUse>): Ledger => ({
  used: addUses(new Map(), uses, 1),
  orders: new Map()
})
