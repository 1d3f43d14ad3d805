import { Data, Either, Option, Schema } from "effect"
import { type Day, formatDay, parseDay } from "./Calendar.ts"
import { type FieldIssue, formatIssues, issuesOfParseError } from "./DecodeError.ts"
import { evaluate } from "./Engine.ts"
import {
  defaultEngineOptions,
  type DispatchResult,
  type EngineItem,
  type EngineOptions,
  type Evaluation,
  type StockShortage
} from "./EngineTypes.ts"
import type { GeoPoint } from "./Geo.ts"
import type { DeliveryMode, DispatchType } from "./Network.ts"
import { type OriginCandidate, rankByProximity, searchOrigins } from "./OriginSearch.ts"
import { nearestPickupStores } from "./PickupStores.ts"
import { type NodeModel, pathKey, type Snapshot, stockKey, type ZoneModel } from "./Snapshot.ts"
import {
  type ArriveDateB,
  type CapacityErrorB,
  type DeliveryRequestB,
  DeliveryRequestB as DeliveryRequestBSchema,
  type DeliveryResponseB,
  type DeliveryTraceB,
  type EntityDetails,
  type ItemB,
  type LogisticsCapacity
} from "./VariantB.ts"
import { CAPACITY_ERROR_CODE, NoRouteFound } from "./VariantAMapping.ts"

/** Variant B error codes (the `code` of the error body) and their statuses. */
export const ERROR_CODES_B = {
  INVALID_REQUEST: 400,
  BUSINESS_RULE_VIOLATION: 400,
  UNAUTHORIZED: 401,
  NO_ROUTE_FOUND: 404,
  INTERNAL_ERROR: 500
} as const
export type ErrorCodeB = keyof typeof ERROR_CODES_B

/** 400 of variant B: the structure (INVALID_REQUEST) or a rule across fields (BUSINESS_RULE_VIOLATION). */
export class InvalidRequestB extends Data.TaggedError("InvalidRequestB")<{
  readonly code: "INVALID_REQUEST" | "BUSINESS_RULE_VIOLATION"
  readonly message: string
  readonly issues: ReadonlyArray<FieldIssue>
}> {}

const decodeSchema = Schema.decodeUnknownEither(DeliveryRequestBSchema, { errors: "all" })

/** An origin of "" counts as no origin. */
const originOf = (item: ItemB): string | undefined =>
  item.origin === undefined || item.origin === "" ? undefined : item.origin

const businessIssues = (request: DeliveryRequestB): ReadonlyArray<FieldIssue> => {
  const issues: Array<FieldIssue> = []
  const options = request.calculationOptions
  if (options?.calculate !== "SEARCH_ORIGINS_BY_COORDINATES") {
    request.items.forEach((item, index) => {
      if (originOf(item) === undefined) {
        issues.push({
          path: `items[${index}].origin`,
          message: "is required unless calculationOptions.calculate is SEARCH_ORIGINS_BY_COORDINATES"
        })
      }
    })
  }
  if (options?.rangeStart !== undefined && options.rangeEnd !== undefined && options.rangeEnd < options.rangeStart) {
    issues.push({ path: "calculationOptions.rangeEnd", message: `must not be before rangeStart (${options.rangeStart})` })
  }
  return issues
}

/** Structure first (every bad field), then the rules across fields. */
export const decodeDeliveryRequestB = (input: unknown): Either.Either<DeliveryRequestB, InvalidRequestB> => {
  const decoded = decodeSchema(input)
  if (Either.isLeft(decoded)) {
    const issues = issuesOfParseError(decoded.left)
    return Either.left(new InvalidRequestB({ code: "INVALID_REQUEST", message: formatIssues(issues), issues }))
  }
  const issues = businessIssues(decoded.right)
  return issues.length === 0
    ? Either.right(decoded.right)
    : Either.left(new InvalidRequestB({ code: "BUSINESS_RULE_VIOLATION", message: formatIssues(issues), issues }))
}

/** Defaults of calculationOptions when absent. */
export const DEFAULT_MAX_PICKUP_POINTS = 3
/** Divisor of volumetric weight (cm³ per kg), the courier convention. */
export const VOLUMETRIC_DIVISOR = 5000

const day = (text: string | undefined): Day | undefined =>
  text === undefined ? undefined : Option.getOrUndefined(parseDay(text))

const dateText = (value: Day | undefined): string => (value === undefined ? "" : formatDay(value))

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

interface Line {
  readonly index: number
  readonly item: ItemB
  readonly origin: string | undefined
  readonly units: number
  readonly weightKg: number
}

interface Alternative {
  readonly mode: DeliveryMode
  /** Store withdrawal: where the customer picks up. */
  readonly store: NodeModel | undefined
}

const EMPTY_ENTITY: EntityDetails = {
  entityType: "",
  entityCode: "",
  name: "",
  shortName: "",
  platformWarehouseId: "",
  platformDockId: "",
  contactNumber: "",
  pickupPointId: "",
  deliveryTime: "",
  addressInfo: { address: "", district: "", province: "", ubigeoCode: "", country: "", latitude: 0, longitude: 0 }
}

export const entityDetailsOf = (model: NodeModel | undefined): EntityDetails => {
  if (model === undefined) return EMPTY_ENTITY
  const node = model.node
  return {
    entityType: node.type,
    entityCode: node.code,
    name: node.name,
    shortName: node.shortName,
    platformWarehouseId: node.platformWarehouseId ?? "",
    platformDockId: node.platformDockId ?? "",
    contactNumber: node.contact.phone,
    pickupPointId: node.pickupPointId ?? "",
    deliveryTime: node.deliveryTime ?? "",
    addressInfo: node.address
  }
}

const pointOf = (model: NodeModel): GeoPoint => model.node.address

/** Nodes that can ship items (hubs only cross-dock). */
const originCandidates = (snapshot: Snapshot): ReadonlyArray<OriginCandidate> => {
  const candidates: Array<OriginCandidate> = []
  for (const model of snapshot.nodes.values()) {
    if (model.node.type !== "HUB") candidates.push({ code: model.code, point: pointOf(model) })
  }
  return candidates
}

const storeCandidates = (snapshot: Snapshot): ReadonlyArray<OriginCandidate> => {
  const stores: Array<OriginCandidate> = []
  for (const model of snapshot.nodes.values()) {
    if (model.node.type === "TD") stores.push({ code: model.code, point: pointOf(model) })
  }
  return stores
}

const resolveZone = (snapshot: Snapshot, request: DeliveryRequestB): ZoneModel | undefined => {
  const { zone, ubigeoCode } = request.deliveryData
  return (zone === undefined ? undefined : snapshot.zones.get(zone)) ??
    (ubigeoCode === undefined ? undefined : snapshot.zoneByUbigeo.get(ubigeoCode))
}

const dispatchItemOf = (item: ItemB, origin: string): ItemB => ({ ...item, origin })

/** One list of dates per delivery window (in the zone's window order: dates that window has room); one list for pickup. */
const deliveryDatesOf = (dispatch: DispatchResult): ReadonlyArray<ReadonlyArray<string>> => {
  const first = dispatch.deliveries[0]
  if (first === undefined) return []
  if (first.windows.length === 0) return [dispatch.deliveries.map((option) => formatDay(option.date))]
  return first.windows.map((_, windowIndex) => {
    const dates: Array<string> = []
    for (const option of dispatch.deliveries) {
      const slot = option.windows[windowIndex]
      if (slot !== undefined && !slot.blocked) dates.push(formatDay(option.date))
    }
    return dates
  })
}

const traceOf = (dispatch: DispatchResult): ReadonlyArray<DeliveryTraceB> => {
  const details = dispatch.legs.map((leg, index) => ({
    sourceNode: leg.route.source.code,
    targetNode: leg.target,
    route: leg.route.id,
    usedDispatchCapacity: leg.usedRouteCapacity,
    usedPickingCapacity: index === 0 ? dispatch.usedPickingCapacity : 0,
    dispatchUnits: dispatch.units,
    leadTime: leg.route.leadTime.days,
    daysOfWeek: leg.route.departureDaysText,
    dispatchDate: formatDay(leg.dispatchDate),
    departureDate: formatDay(leg.departureDate),
    receptionDate: formatDay(leg.receptionDate)
  }))
  return dispatch.deliveries.map((option) => ({
    deliveryDate: formatDay(option.date),
    shippingEstimate: null,
    details,
    deliveryWindows: option.windows.map((slot) => ({
      deliveryWindow: slot.window.code,
      deliveryWindowStart: slot.window.start,
      deliveryWindowEnd: slot.window.end,
      blocked: slot.blocked
    }))
  }))
}

const arriveDatesOf = (dispatch: DispatchResult): ReadonlyArray<ArriveDateB> => {
  const dates: Array<ArriveDateB> = []
  if (dispatch.pickingDate !== undefined) dates.push({ node: dispatch.origin, arriveDate: formatDay(dispatch.pickingDate) })
  for (const leg of dispatch.legs) dates.push({ node: leg.target, arriveDate: formatDay(leg.receptionDate) })
  return dates
}

const stockMessage = (sku: string, node: string, requested: number, available: number) =>
  `stock of ${sku} at ${node}: requested ${requested}, available ${available}`

const stockError = (
  provider: string,
  message: string,
  short: ReadonlyArray<{ readonly sku: string; readonly requested: number; readonly available: number; readonly description: string }>
): CapacityErrorB => ({
  code: "STOCK_ERROR",
  details: short.map((line) => ({
    errorCode: "SOLD_OUT_QUANTITY",
    description: line.description,
    sku: line.sku,
    requestedQuantity: line.requested,
    availableQuantity: line.available
  })),
  providerDetails: {
    code: provider,
    message,
    detail: short.map((line) => line.description).join("; "),
    detailCapacity: [],
    detailStock: short.map((line) => ({
      sku: line.sku,
      warningMessage: line.description,
      requestedQuantity: line.requested,
      availableQuantity: line.available
    }))
  }
})

const capacityErrorOf = (dispatch: DispatchResult, shipped: ReadonlyArray<Line>): CapacityErrorB | undefined => {
  const shortage = dispatch.shortage
  if (shortage === undefined) return undefined
  return {
    code: "CAPACITY_ERROR",
    details: shipped.map((line) => ({
      errorCode: CAPACITY_ERROR_CODE[shortage.kind],
      description: dispatch.message,
      sku: line.item.skuCode,
      requestedQuantity: line.units,
      availableQuantity: shortage.available
    })),
    providerDetails: {
      code: shortage.provider,
      message: dispatch.message,
      detail: `available ${shortage.available}, used ${shortage.used}, total ${shortage.total} on ${formatDay(shortage.date)}`,
      detailCapacity: [{ message: dispatch.message }],
      detailStock: []
    }
  }
}

interface Context {
  readonly snapshot: Snapshot
  readonly request: DeliveryRequestB
  readonly dispatchType: DispatchType
  readonly zone: ZoneModel | undefined
  readonly costEnabled: boolean
}

const destinationOf = (context: Context, alternative: Alternative): string =>
  alternative.store?.code ??
    context.request.deliveryData.destination ?? context.request.deliveryData.ubigeoCode ?? context.zone?.code ?? ""

const zoneOf = (context: Context, alternative: Alternative): string =>
  alternative.store === undefined
    ? (context.zone?.code ?? context.request.deliveryData.zone ?? "")
    : (context.snapshot.zoneByUbigeo.get(alternative.store.node.address.ubigeoCode)?.code ?? "")

const entryOfDispatch = (
  context: Context,
  alternative: Alternative,
  dispatch: DispatchResult,
  shipped: ReadonlyArray<Line>,
  short: ReadonlyArray<{ readonly line: Line; readonly shortage: StockShortage }>
): LogisticsCapacity => {
  const errors: Array<CapacityErrorB> = []
  const capacity = capacityErrorOf(dispatch, shipped)
  if (capacity !== undefined) errors.push(capacity)
  if (short.length > 0) {
    errors.push(stockError(
      dispatch.origin,
      `stock is short at ${dispatch.origin} for ${short.length} item(s)`,
      short.map(({ shortage }) => ({
        sku: shortage.sku,
        requested: shortage.requested,
        available: shortage.available,
        description: stockMessage(shortage.sku, shortage.node, shortage.requested, shortage.available)
      }))
    ))
  }
  const origin = dispatch.originNode
  return {
    origin: dispatch.origin,
    destination: destinationOf(context, alternative),
    zone: zoneOf(context, alternative),
    route: dispatch.path.map((leg) => leg.id).join(">"),
    pickingDate: dateText(dispatch.pickingDate),
    message: dispatch.message,
    dispatchType: dispatch.dispatchType,
    dispatchMode: dispatch.deliveryMode,
    deliveryCost: context.costEnabled ? dispatch.cost : 0,
    pickingDays: origin?.pickingDayNames ?? [],
    processingDays: origin?.node.processingDays ?? 0,
    leadTimes: dispatch.path.map((leg) => leg.leadTime.days),
    routeDaysOfWeek: dispatch.path.map((leg) => leg.departureDayNames),
    deliveryDates: deliveryDatesOf(dispatch),
    originEntityDetails: entityDetailsOf(origin),
    pickupEntityDetails: entityDetailsOf(alternative.store),
    deliveryTrace: traceOf(dispatch),
    arriveDates: arriveDatesOf(dispatch),
    detailedCapacityError: errors,
    dispatchItems: shipped.map((line) => dispatchItemOf(line.item, dispatch.origin))
  }
}

const unservedEntry = (
  context: Context,
  alternative: Alternative,
  unserved: ReadonlyArray<{ readonly line: Line; readonly available: number }>,
  maxDistanceKm: number
): LogisticsCapacity => {
  const range = Number.isFinite(maxDistanceKm) ? ` within ${maxDistanceKm} km` : ""
  const message = `no origin${range} can serve ${unserved.length} item(s)`
  return {
    origin: "",
    destination: destinationOf(context, alternative),
    zone: zoneOf(context, alternative),
    route: "",
    pickingDate: "",
    message,
    dispatchType: context.dispatchType,
    dispatchMode: alternative.mode,
    deliveryCost: 0,
    pickingDays: [],
    processingDays: 0,
    leadTimes: [],
    routeDaysOfWeek: [],
    deliveryDates: [],
    originEntityDetails: EMPTY_ENTITY,
    pickupEntityDetails: entityDetailsOf(alternative.store),
    deliveryTrace: [],
    arriveDates: [],
    detailedCapacityError: [stockError(
      "",
      message,
      unserved.map(({ available, line }) => ({
        sku: line.item.skuCode,
        requested: line.units,
        available,
        description: `no origin${range} with a route to ${destinationOf(context, alternative)} holds ${line.units} units of ${line.item.skuCode} (most at one origin: ${available})`
      }))
    )],
    dispatchItems: []
  }
}

interface AlternativeOutcome {
  readonly entries: ReadonlyArray<LogisticsCapacity>
  readonly routed: boolean
  readonly reasons: ReadonlyArray<string>
}

/**
 * Variant B end to end on a decoded request: one LogisticsCapacity per dispatch of each
 * alternative (home delivery, then each pickup store nearest first), or 404 when nothing routes.
 */
export const evaluateVariantB = (
  snapshot: Snapshot,
  request: DeliveryRequestB,
  epochMillis: number,
  options: EngineOptions = defaultEngineOptions
): Either.Either<DeliveryResponseB, NoRouteFound> => {
  const calculation = request.calculationOptions
  const searching = calculation?.calculate === "SEARCH_ORIGINS_BY_COORDINATES"
  const validateStock = calculation?.validateStock ?? true
  const maxDistanceKm = calculation?.maxDistancePickingStore ?? Number.POSITIVE_INFINITY
  const dispatchType: DispatchType = request.dispatchType ?? "NORMAL"
  const mode = request.dispatchMode ?? "HOME_DELIVERY"
  const freight = request.hasFreightAttributeConfiguration ?? false
  const customer: GeoPoint = request.deliveryData
  const context: Context = {
    snapshot,
    request,
    dispatchType,
    zone: resolveZone(snapshot, request),
    costEnabled: calculation?.dispatchCostEnabled ?? true
  }
  const lines: ReadonlyArray<Line> = request.items.map((item, index) => {
    const units = item.units ?? Math.ceil(item.quantity)
    return { index, item, origin: originOf(item), units, weightKg: unitWeightKg(item, freight) * units }
  })
  const candidates = searching ? originCandidates(snapshot) : []
  const inRange = rankByProximity(customer, candidates, maxDistanceKm)
  const stockOf = (node: string, sku: string) => snapshot.stock.get(stockKey(node, sku))

  const alternatives: Array<Alternative> = []
  if (mode !== "STORE_WITHDRAWAL") alternatives.push({ mode: "HOME_DELIVERY", store: undefined })
  let rankedStores = false
  if (mode !== "HOME_DELIVERY") {
    const reaches = (store: string) =>
      lines.some((line) =>
        line.origin !== undefined
          ? snapshot.paths.has(pathKey(line.origin, dispatchType, "STORE_WITHDRAWAL", store))
          : inRange.some((candidate) =>
            stockOf(candidate.code, line.item.skuCode) !== undefined &&
            snapshot.paths.has(pathKey(candidate.code, dispatchType, "STORE_WITHDRAWAL", store))
          )
      )
    const stores = nearestPickupStores(
      customer,
      storeCandidates(snapshot),
      calculation?.maxPickupPoint ?? DEFAULT_MAX_PICKUP_POINTS,
      reaches
    )
    rankedStores = true
    for (const store of stores) alternatives.push({ mode: "STORE_WITHDRAWAL", store: snapshot.nodes.get(store.code) })
  }

  const engineRequestBase = {
    purchaseDate: day(request.purchaseDate) ?? 0,
    validateStock,
    deliveryFrom: day(calculation?.rangeStart),
    deliveryUntil: day(calculation?.rangeEnd)
  }

  const evaluateAlternative = (alternative: Alternative): AlternativeOutcome => {
    const destination = alternative.store?.code ?? context.zone?.code
    const canServe = (node: string) =>
      destination !== undefined && snapshot.paths.has(pathKey(node, dispatchType, alternative.mode, destination))
    const fixed: Array<{ origin: string; sku: string; units: number }> = []
    const searched: Array<Line> = []
    for (const line of lines) {
      if (line.origin !== undefined) fixed.push({ origin: line.origin, sku: line.item.skuCode, units: line.units })
      else searched.push(line)
    }
    const choices = searched.length === 0 ? [] : searchOrigins(
      { customer, candidates, stockOf, canServe, fixed },
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
      : evaluate(snapshot, { ...engineRequestBase, items }, epochMillis, options)

    const entries: Array<LogisticsCapacity> = []
    if (evaluation !== undefined) {
      for (const dispatch of evaluation.dispatches) {
        const shipped: Array<Line> = []
        const short: Array<{ line: Line; shortage: StockShortage }> = []
        evaluation.items.forEach((result, i) => {
          const line = engineLines[i]
          if (result.dispatch !== dispatch || line === undefined) return
          if (result.stockShortage === undefined) shipped.push(line)
          else short.push({ line, shortage: result.stockShortage })
        })
        entries.push(entryOfDispatch(context, alternative, dispatch, shipped, short))
      }
    }
    if (unserved.length > 0) entries.push(unservedEntry(context, alternative, unserved, maxDistanceKm))
    return {
      entries,
      routed: (evaluation?.anyRouted ?? false) || unserved.length > 0,
      reasons: evaluation?.dispatches.map((dispatch) => dispatch.message) ?? []
    }
  }

  const outcomes = alternatives.map(evaluateAlternative)
  if (!outcomes.some((outcome) => outcome.routed)) {
    const reasons = [...new Set(outcomes.flatMap((outcome) => outcome.reasons))]
    if (mode !== "HOME_DELIVERY" && alternatives.every((alternative) => alternative.store === undefined)) {
      reasons.push(`no pickup store is reachable by ${dispatchType} routes`)
    }
    return Either.left(new NoRouteFound({ message: `no route found for any dispatch: ${reasons.join("; ")}` }))
  }
  return Either.right({
    request,
    logisticsCapacity: outcomes.flatMap((outcome) => outcome.entries),
    prioritizationCriteria: searching || rankedStores ? "PROXIMITY_STORE" : "EARLIEST_DELIVERY_DATE"
  })
}
