import type { Day } from "./Calendar.ts"
import {
  defaultEngineOptions,
  type DispatchResult,
  type EngineItem,
  type EngineOptions,
  type EngineRequest,
  type Evaluation,
  type ItemResult,
  type StockShortage
} from "./EngineTypes.ts"
import type { DeliveryMode, DispatchType } from "./Network.ts"
import { cachedPlanPath } from "./PlanCache.ts"
import type { PathPlan } from "./EngineTypes.ts"
import type { PlanContext } from "./Planner.ts"
import { pathsTo } from "./Routing.ts"
import type { NodeModel, RoutePath, Snapshot, ZoneModel } from "./SnapshotModel.ts"

/**
 * Items go into one dispatch when they share origin, dispatch type, delivery mode and
 * destination (zone for home delivery, pickup store for store withdrawal).
 */
export const dispatchCode = (
  origin: string,
  destination: string,
  dispatchType: DispatchType,
  mode: DeliveryMode
): string => `${origin}-${destination}-${dispatchType === "NORMAL" ? "N" : "E"}${mode === "HOME_DELIVERY" ? "H" : "S"}`

interface Group {
  readonly code: string
  readonly origin: string
  readonly originNode: NodeModel | undefined
  readonly dispatchType: DispatchType
  readonly deliveryMode: DeliveryMode
  readonly destination: string
  readonly zone: ZoneModel | undefined
  readonly pickupNode: NodeModel | undefined
  readonly unroutable: string | undefined
  readonly indexes: Array<number>
}

const resolveZone = (snapshot: Snapshot, item: EngineItem): ZoneModel | undefined =>
  (item.zone === undefined ? undefined : snapshot.zones.get(item.zone)) ??
    (item.ubigeo === undefined ? undefined : snapshot.zoneByUbigeo.get(item.ubigeo))

const groupOf = (snapshot: Snapshot, item: EngineItem): Group => {
  const originNode = snapshot.nodes.get(item.origin)
  const home = item.deliveryMode === "HOME_DELIVERY"
  const zone = home ? resolveZone(snapshot, item) : undefined
  const pickupNode = home || item.pickupNode === undefined ? undefined : snapshot.nodes.get(item.pickupNode)
  const destination = home ? (zone?.code ?? item.zone ?? item.ubigeo ?? "") : (item.pickupNode ?? "")
  const unroutable = originNode === undefined
    ? `origin "${item.origin}" is not a node of the network`
    : home && zone === undefined
    ? `no zone serves zone "${item.zone ?? ""}" / ubigeo "${item.ubigeo ?? ""}"`
    : !home && pickupNode === undefined
    ? `pickup store "${item.pickupNode ?? ""}" is not a node of the network`
    : undefined
  return {
    code: dispatchCode(item.origin, destination, item.dispatchType, item.deliveryMode),
    origin: item.origin,
    originNode,
    dispatchType: item.dispatchType,
    deliveryMode: item.deliveryMode,
    destination,
    zone,
    pickupNode,
    unroutable,
    indexes: []
  }
}

/** Whether two items of one origin go to the same group: every input of `groupOf` but the origin. */
const asksTheSame = (a: EngineItem, b: EngineItem): boolean =>
  a.dispatchType === b.dispatchType && a.deliveryMode === b.deliveryMode && a.zone === b.zone && a.ubigeo === b.ubigeo &&
  a.pickupNode === b.pickupNode

const roundCents = (amount: number): number => Math.round(amount * 100) / 100

/** Split a dispatch cost over its items by weight (by units when weightless), cents adding up exactly. */
const apportion = (cost: number, items: ReadonlyArray<EngineItem>): ReadonlyArray<number> => {
  let weight = 0
  let units = 0
  for (const item of items) {
    weight += item.weightKg
    units += item.units
  }
  const shares: Array<number> = []
  let given = 0
  items.forEach((item, index) => {
    if (index === items.length - 1) {
      shares.push(roundCents(cost - given))
      return
    }
    const share = weight > 0 ? item.weightKg / weight : units > 0 ? item.units / units : 1 / items.length
    const amount = roundCents(cost * share)
    given += amount
    shares.push(amount)
  })
  return shares
}

const firstDelivery = (plan: PathPlan): Day => plan.deliveries[0]?.date ?? Number.POSITIVE_INFINITY

const dispatchResult = (
  group: Group,
  status: DispatchResult["status"],
  units: number,
  weightKg: number,
  path: RoutePath,
  plan: PathPlan | undefined,
  message: string,
  cost: number
): DispatchResult => ({
  code: group.code,
  status,
  message,
  origin: group.origin,
  originNode: group.originNode,
  dispatchType: group.dispatchType,
  deliveryMode: group.deliveryMode,
  destination: group.destination,
  units,
  weightKg,
  path,
  pickingDate: plan?.pickingDate,
  usedPickingCapacity: plan?.usedPickingCapacity ?? 0,
  readyDate: plan?.readyDate,
  legs: plan?.legs ?? [],
  deliveries: plan?.deliveries ?? [],
  cost,
  shortage: plan?.shortage,
  plan
})

/**
 * Evaluate a normalised request against a snapshot at the instant `epochMillis`.
 * Reads only: nothing is reserved; the same inputs always give the same answer.
 */
export const evaluate = (
  snapshot: Snapshot,
  request: EngineRequest,
  epochMillis: number,
  options: EngineOptions = defaultEngineOptions
): Evaluation => {
  const groups = new Map<string, Group>()
  const groupOfItem: Array<Group> = []
  // Items asking the same of the same origin share a group without its code being built again: a
  // request's items mostly differ only by origin (the code stays the key, as dispatches are named by it).
  const askedOf = new Map<string, Array<{ readonly item: EngineItem; readonly group: Group }>>()
  for (let index = 0; index < request.items.length; index++) {
    const item = request.items[index]!
    let asked = askedOf.get(item.origin)
    if (asked === undefined) askedOf.set(item.origin, asked = [])
    let group = asked.find(({ item: other }) => asksTheSame(other, item))?.group
    if (group === undefined) {
      const candidate = groupOf(snapshot, item)
      group = groups.get(candidate.code) ?? candidate
      if (group === candidate) groups.set(candidate.code, group)
      asked.push({ item, group })
    }
    group.indexes.push(index)
    groupOfItem.push(group)
  }

  const context: PlanContext = {
    snapshot,
    epochMillis,
    clocks: [],
    options,
    deliveryFrom: request.deliveryFrom,
    deliveryUntil: request.deliveryUntil,
    usageReads: undefined
  }
  /** Units the request's earlier items took, by node then SKU (no key string per item). */
  const stockTaken = new Map<string, Map<string, number>>()
  const stockShortages: Array<StockShortage | undefined> = []
  const resultOfGroup = new Map<Group, DispatchResult>()
  const costs: Array<number> = []

  for (const group of groups.values()) {
    const candidates = group.unroutable === undefined
      ? pathsTo(snapshot.paths, group.dispatchType, group.deliveryMode, group.destination).get(group.origin)
      : undefined
    if (group.originNode === undefined || candidates === undefined || candidates.length === 0) {
      const reason = group.unroutable ??
        `no ${group.dispatchType} ${group.deliveryMode} route from ${group.origin} to ${group.destination}`
      resultOfGroup.set(group, dispatchResult(group, "NO_ROUTE", 0, 0, [], undefined, reason, 0))
      continue
    }

    const shipped: Array<EngineItem> = []
    const shippedIndexes: Array<number> = []
    let units = 0
    let weightKg = 0
    group.indexes.forEach((index) => {
      const item = request.items[index]
      if (item === undefined) return
      if (request.validateStock) {
        const stock = snapshot.stock.unitsOf(item.origin, item.sku) ?? 0
        let takenAtOrigin = stockTaken.get(item.origin)
        const taken = takenAtOrigin?.get(item.sku) ?? 0
        const available = stock - taken
        if (item.units > available) {
          stockShortages[index] = { node: item.origin, sku: item.sku, requested: item.units, available, taken, stock }
          return
        }
        if (takenAtOrigin === undefined) stockTaken.set(item.origin, takenAtOrigin = new Map())
        takenAtOrigin.set(item.sku, taken + item.units)
      }
      shipped.push(item)
      shippedIndexes.push(index)
      units += item.units
      weightKg += item.weightKg
    })
    if (shipped.length === 0) {
      const path = candidates[0] ?? []
      resultOfGroup.set(group, dispatchResult(group, "NO_STOCK", 0, 0, path, undefined, "no stock for any item", 0))
      continue
    }

    const dispatch = {
      origin: group.originNode,
      dispatchType: group.dispatchType,
      deliveryMode: group.deliveryMode,
      zone: group.zone,
      pickupNode: group.pickupNode,
      units,
      purchaseDate: request.purchaseDate
    }
    let best: PathPlan | undefined
    let firstTried: PathPlan | undefined
    for (const path of candidates) {
      const plan = cachedPlanPath(context, dispatch, path)
      firstTried ??= plan
      if (plan.deliveries.length > 0 && (best === undefined || firstDelivery(plan) < firstDelivery(best))) best = plan
    }
    const chosen = best ?? firstTried
    if (chosen === undefined) continue
    let cost = 0
    for (const leg of chosen.path) cost += leg.cost.base + leg.cost.perKg * weightKg
    cost = chosen.deliveries.length > 0 ? roundCents(cost) : 0
    const shares = apportion(cost, shipped)
    shippedIndexes.forEach((index, i) => {
      costs[index] = shares[i] ?? 0
    })
    const status = chosen.deliveries.length > 0 ? "PLANNED" : chosen.shortage !== undefined ? "NO_CAPACITY" : "NO_DATE"
    resultOfGroup.set(group, dispatchResult(group, status, units, weightKg, chosen.path, chosen, chosen.message, cost))
  }

  const items: Array<ItemResult> = []
  let anyRouted = false
  request.items.forEach((item, index) => {
    const group = groupOfItem[index]
    const dispatch = group === undefined ? undefined : resultOfGroup.get(group)
    if (dispatch === undefined) return
    if (dispatch.status !== "NO_ROUTE") anyRouted = true
    items.push({ item, dispatch, cost: costs[index] ?? 0, stockShortage: stockShortages[index] })
  })
  return { items, dispatches: [...resultOfGroup.values()], anyRouted }
}
