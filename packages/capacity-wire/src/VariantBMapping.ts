import {
  type CandidateSearchOf,
  type Day,
  defaultEngineOptions,
  type DeliveryMode,
  type DispatchType,
  type EngineItem,
  type EngineOptions,
  evaluate,
  type Evaluation,
  type GeoPoint,
  indexedCandidateSearch,
  nearestAcceptedStores,
  originIndexOf,
  parseDay,
  pathsTo,
  type RankedCandidate,
  searchOrigins,
  type Snapshot,
  type ZoneModel
} from "@retail/capacity"
import { Option, Result } from "effect"
import type { DeliveryRequestB, DeliveryResponseB, ItemB, LogisticsCapacity } from "./VariantB.ts"
import { NoRouteFound } from "./RequestErrors.ts"
import { originOfItem } from "./VariantBDecode.ts"
import { DEFAULT_MAX_PICKUP_POINTS, echoItem, requestWithDefaults } from "./VariantBEcho.ts"
import { type Alternative, entriesOfEvaluation, type EntryContext, type Line, unservedEntry } from "./VariantBEntries.ts"

/** Divisor of volumetric weight (cm³ per kg), the courier convention. */
export const VOLUMETRIC_DIVISOR = 5000

const day = (text: string | undefined): Day | undefined =>
  text === undefined ? undefined : Option.getOrUndefined(parseDay(text))

/** Weight of one unit in kg; with freight configuration, the larger of real and volumetric weight. */
export const unitWeightKg = (item: ItemB, freight: boolean): number => {
  const real = item.weight ?? 0
  if (!freight) return real
  const volume = item.volume ??
    (item.height !== undefined && item.width !== undefined && item.length !== undefined
      ? item.height * item.width * item.length
      : 0)
  return Math.max(real, volume / VOLUMETRIC_DIVISOR)
}

const resolveZone = (snapshot: Snapshot, request: DeliveryRequestB): ZoneModel | undefined => {
  const { zone, ubigeoCode } = request.deliveryData
  return (zone === undefined ? undefined : snapshot.zones.get(zone)) ??
    (ubigeoCode === undefined ? undefined : snapshot.zoneByUbigeo.get(ubigeoCode))
}

interface AlternativeOutcome {
  readonly entries: ReadonlyArray<LogisticsCapacity>
  readonly routed: boolean
  readonly reasons: ReadonlyArray<string>
}

/**
 * Variant B end to end on a decoded request: one LogisticsCapacity per dispatch of each
 * alternative (home delivery, then each pickup store nearest first), or 404 when nothing routes.
 * `candidateSearch`: how origins and pickup stores are found (the tests compare the indexed search
 * with `fullScanCandidateSearch`; both give the same answers).
 */
export const evaluateVariantB = (
  snapshot: Snapshot,
  request: DeliveryRequestB,
  epochMillis: number,
  options: EngineOptions = defaultEngineOptions,
  candidateSearch: CandidateSearchOf = indexedCandidateSearch
): Result.Result<DeliveryResponseB, NoRouteFound> => {
  const calculation = request.calculationOptions
  const validateStock = calculation?.validateStock ?? true
  const maxDistanceKm = calculation?.maxDistancePickingStore ?? Number.POSITIVE_INFINITY
  const dispatchType: DispatchType = request.dispatchType ?? "NORMAL"
  const mode = request.dispatchMode ?? "HOME_DELIVERY"
  const freight = request.hasFreightAttributeConfiguration ?? false
  const customer: GeoPoint = request.deliveryData
  const context: EntryContext = {
    snapshot,
    request,
    dispatchType,
    zone: resolveZone(snapshot, request),
    costEnabled: calculation?.dispatchCostEnabled ?? true
  }
  const echoedItems: Array<ItemB> = []
  const lines: Array<Line> = []
  for (let index = 0; index < request.items.length; index++) {
    const item = echoItem(request.items[index]!, undefined)
    const units = item.units ?? Math.ceil(item.quantity)
    echoedItems.push(item)
    lines.push({ index, item, origin: originOfItem(item), units, weightKg: unitWeightKg(item, freight) * units, shippedFrom: undefined })
  }
  // Items without an origin are searched whether or not `calculate` asks for it (docs/capacity.md, "Origin search").
  const searching = calculation?.calculate === "SEARCH_ORIGINS_BY_COORDINATES" || lines.some((line) => line.origin === undefined)
  const index = originIndexOf(snapshot)
  const candidates = searching ? index.origins : []
  const search = candidateSearch(snapshot, customer, maxDistanceKm)
  const stockOf = index.stockOf
  /** Whether some origin in range holding the SKU has a path: its holders if listed, else every origin in range, nearest first. */
  const someHolderInRange = (sku: string, hasPath: (node: string) => boolean): boolean => {
    const holders = search.holdersInRange(sku)
    if (holders !== undefined) return holders.some((candidate) => hasPath(candidate.code))
    for (let i = 0;; i++) {
      const candidate: RankedCandidate | undefined = search.origins.at(i)
      if (candidate === undefined) return false
      if (stockOf(candidate.code, sku) !== undefined && hasPath(candidate.code)) return true
    }
  }
  /** Whether a node has a path of the request's dispatch type and this mode to `destination`. */
  const servedBy = (mode: DeliveryMode, destination: string) => {
    const serving = pathsTo(snapshot.paths, dispatchType, mode, destination)
    return (node: string) => serving.has(node)
  }

  const alternatives: Array<Alternative> = []
  if (mode !== "STORE_WITHDRAWAL") alternatives.push({ mode: "HOME_DELIVERY", store: undefined })
  let rankedStores = false
  if (mode !== "HOME_DELIVERY") {
    const reaches = (store: string) => {
      const hasPath = servedBy("STORE_WITHDRAWAL", store)
      return lines.some((line) =>
        line.origin !== undefined ? hasPath(line.origin) : someHolderInRange(line.item.skuCode, hasPath)
      )
    }
    const stores = nearestAcceptedStores(search.stores, calculation?.maxPickupPoint ?? DEFAULT_MAX_PICKUP_POINTS, reaches)
    rankedStores = true
    for (const store of stores) alternatives.push({ mode: "STORE_WITHDRAWAL", store: snapshot.nodes.get(store.code) })
  }

  const purchaseDate = day(request.purchaseDate) ?? 0
  const deliveryFrom = day(calculation?.rangeStart)
  const deliveryUntil = day(calculation?.rangeEnd)

  const evaluateAlternative = (alternative: Alternative): AlternativeOutcome => {
    const destination = alternative.store?.code ?? context.zone?.code
    const canServe = destination === undefined ? () => false : servedBy(alternative.mode, destination)
    const fixed: Array<{ origin: string; sku: string; units: number }> = []
    const searched: Array<Line> = []
    for (const line of lines) {
      if (line.origin !== undefined) fixed.push({ origin: line.origin, sku: line.item.skuCode, units: line.units })
      else searched.push(line)
    }
    const choices = searched.length === 0 ? [] : searchOrigins(
      { customer, candidates, stockOf, canServe, fixed, nearest: search.origins, holdersInRange: search.holdersInRange },
      searched.map((line) => ({ sku: line.item.skuCode, units: line.units })),
      {
        maxOrigins: calculation?.maxOrigins ?? Number.POSITIVE_INFINITY,
        maxItemsPerOrigin: calculation?.maxItemsPerOrigin ?? Number.POSITIVE_INFINITY,
        maxDistanceKm,
        requireUnits: validateStock
      }
    )
    const originOfLine = new Map<number, string>()
    const unserved: Array<{ line: Line; available: number }> = []
    searched.forEach((line, i) => {
      const choice = choices[i]
      if (choice?._tag === "Chosen") originOfLine.set(line.index, choice.origin)
      else unserved.push({ line, available: choice?._tag === "Unserved" ? choice.available : 0 })
    })

    const engineLines: Array<Line> = []
    const items: Array<EngineItem> = []
    for (const line of lines) {
      const origin = line.origin ?? originOfLine.get(line.index)
      if (origin === undefined) continue
      engineLines.push(line)
      items.push({
        sku: line.item.skuCode,
        origin,
        units: line.units,
        weightKg: line.weightKg,
        dispatchType,
        deliveryMode: alternative.mode,
        zone: alternative.store === undefined ? request.deliveryData.zone : undefined,
        ubigeo: alternative.store === undefined ? request.deliveryData.ubigeoCode : undefined,
        pickupNode: alternative.store?.code
      })
    }
    const evaluation: Evaluation | undefined = items.length === 0
      ? undefined
      : evaluate(snapshot, { purchaseDate, validateStock, deliveryFrom, deliveryUntil, items }, epochMillis, options)

    const entries = evaluation === undefined ? [] : entriesOfEvaluation(context, alternative, evaluation, engineLines)
    if (unserved.length > 0) entries.push(unservedEntry(context, alternative, unserved, maxDistanceKm))
    const reasons = evaluation?.dispatches.map((dispatch) => dispatch.message) ?? []
    if (destination === undefined) {
      const { ubigeoCode, zone } = request.deliveryData
      reasons.push(`no zone serves deliveryData zone "${zone ?? ""}" / ubigeoCode "${ubigeoCode ?? ""}"`)
    }
    return {
      entries,
      // Items no origin can serve are a stock answer (200), unless there is nowhere to deliver.
      routed: (evaluation?.anyRouted ?? false) || (unserved.length > 0 && destination !== undefined),
      reasons
    }
  }

  const outcomes = alternatives.map(evaluateAlternative)
  if (!outcomes.some((outcome) => outcome.routed)) {
    const reasons = [...new Set(outcomes.flatMap((outcome) => outcome.reasons))]
    if (mode !== "HOME_DELIVERY" && alternatives.every((alternative) => alternative.store === undefined)) {
      reasons.push(`no pickup store is reachable by ${dispatchType} routes`)
    }
    return Result.fail(new NoRouteFound({ message: `no route found for any dispatch: ${reasons.join("; ")}` }))
  }
  // Pushed, not flatMap: flatMap's array is holey, which JSON.stringify writes on its slow path.
  const logisticsCapacity: Array<LogisticsCapacity> = []
  for (const outcome of outcomes) for (const entry of outcome.entries) logisticsCapacity.push(entry)
  return Result.succeed({
    request: requestWithDefaults(request, echoedItems, searching),
    logisticsCapacity,
    prioritizationCriteria: searching || rankedStores ? "PROXIMITY_STORE" : "EARLIEST_DELIVERY_DATE"
  })
}
