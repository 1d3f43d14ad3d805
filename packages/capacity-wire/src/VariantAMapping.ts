import {
  type CapacityShortage,
  type Day,
  defaultEngineOptions,
  type DispatchResult,
  type EngineItem,
  type EngineOptions,
  type EngineRequest,
  evaluate,
  formatDay,
  formatRejected,
  isReusedPlan,
  type ItemResult,
  parseDay,
  type PathPlan,
  type Snapshot,
  type StockShortage
} from "@retail/capacity"
import { makeFastDecoder } from "@retail/domain"
import { Option, Result, Schema } from "effect"
import { CAPACITY_ERROR_CODE, deliveryWindowsOf, traceDetailsOf } from "./DispatchTrace.ts"
import { dateTextsOf, pathPartsOf } from "./SharedParts.ts"
import { mapForJson } from "./JsonArrays.ts"
import { BadRequest, NoRouteFound } from "./RequestErrors.ts"
import { markJsonLasting } from "./JsonTextReuse.ts"
import {
  type ArriveDateA,
  type CapacityErrorA,
  type DeliveryRequestA,
  DeliveryRequestA as DeliveryRequestASchema,
  type DeliveryResult,
  type DeliveryTrace,
  type DispatchItemA,
} from "./VariantA.ts"

const decodeRequest = Schema.decodeUnknownResult(DeliveryRequestASchema)
/** Same accept decisions and output as `decodeRequest`, compiled from the schema; `undefined` means "ask Schema" (for the messages). */
const decodeValidRequest = makeFastDecoder(DeliveryRequestASchema)

export const decodeDeliveryRequestA = (input: unknown): Result.Result<DeliveryRequestA, BadRequest> => {
  const valid = decodeValidRequest(input)
  if (valid !== undefined) return Result.succeed(valid)
  return Result.mapError(decodeRequest(input), (error) => new BadRequest({ message: formatRejected(DeliveryRequestASchema, input, error) }))
}

const UBIGEO = /^\d{6}$/

/** One engine item per request item: units default to quantity rounded up; weight is per unit. */
export const engineItemOfA = (item: DispatchItemA): EngineItem => {
  const units = item.units ?? Math.ceil(item.quantity)
  const home = item.deliveryMode === "HOME_DELIVERY"
  return {
    sku: item.skuCode,
    origin: item.origin,
    units,
    weightKg: (item.weight ?? 0) * units,
    dispatchType: item.dispatchType,
    deliveryMode: item.deliveryMode,
    zone: home ? item.zone : undefined,
    ubigeo: home && UBIGEO.test(item.destination) ? item.destination : undefined,
    pickupNode: home ? undefined : item.destination
  }
}

/** Variant A always validates stock at the origin. */
export const engineRequestOfA = (request: DeliveryRequestA): EngineRequest => ({
  purchaseDate: Option.getOrElse(parseDay(request.purchaseDate), () => 0),
  items: request.items.map(engineItemOfA),
  validateStock: true
})

/** Codes of arriveDates[].code. */
export const ARRIVE_OK = 0
export const ARRIVE_NO_CAPACITY = 1
export const ARRIVE_NO_DATE = 2

const dateText = (day: Day | undefined): string | null => (day === undefined ? null : formatDay(day))

const capacityError = (shortage: CapacityShortage, sku: string, message: string): CapacityErrorA => ({
  code: "CAPACITY_ERROR",
  details: [{
    errorCode: CAPACITY_ERROR_CODE[shortage.kind],
    description: message,
    sku,
    requestedQuantity: shortage.requested,
    availableQuantity: shortage.available
  }],
  providerDetails: {
    providerCode: shortage.provider,
    availableCapacity: shortage.available,
    usedCapacity: shortage.used,
    totalCapacity: shortage.total,
    date: formatDay(shortage.date)
  }
})

/** Parts of a result shared by every item of one dispatch, built once per dispatch. */
interface DispatchParts {
  readonly dispatchCode: string | null
  readonly route: string | null
  readonly leadTimes: ReadonlyArray<number>
  readonly routeDaysOfWeek: ReadonlyArray<ReadonlyArray<string>>
  readonly pickingDays: ReadonlyArray<string>
  readonly processingDays: number | null
  readonly deliveryDates: ReadonlyArray<string>
  readonly deliveryTrace: ReadonlyArray<DeliveryTrace>
  readonly arriveDates: ReadonlyArray<ArriveDateA>
}

const partsOf = (dispatch: DispatchResult): DispatchParts => {
  const details = traceDetailsOf(dispatch)
  const path = pathPartsOf(dispatch.path)
  const origin = dispatch.originNode
  const arriveDates: Array<ArriveDateA> = []
  if (dispatch.pickingDate !== undefined) {
    const purchaseOrder = origin !== undefined && (origin.node.type === "PRV" || origin.node.type === "SELLER")
    arriveDates.push({
      node: dispatch.origin,
      nodePurchaseOrder: purchaseOrder ? dispatch.origin : null,
      edgeId: null,
      arriveDate: formatDay(dispatch.pickingDate),
      code: ARRIVE_OK,
      message: "picking"
    })
  }
  for (const leg of dispatch.legs) {
    arriveDates.push({
      node: leg.target,
      nodePurchaseOrder: null,
      edgeId: leg.route.id,
      arriveDate: formatDay(leg.receptionDate),
      code: ARRIVE_OK,
      message: "OK"
    })
  }
  if (dispatch.status === "NO_CAPACITY" || dispatch.status === "NO_DATE") {
    arriveDates.push({
      node: dispatch.shortage?.provider ?? dispatch.destination,
      nodePurchaseOrder: null,
      edgeId: null,
      arriveDate: null,
      code: dispatch.status === "NO_CAPACITY" ? ARRIVE_NO_CAPACITY : ARRIVE_NO_DATE,
      message: dispatch.message
    })
  }
  return {
    // No route: no dispatch is generated, so it has no code (the grouping key would read "CD1--NH").
    dispatchCode: dispatch.status === "NO_ROUTE" ? null : dispatch.code,
    route: path.route,
    leadTimes: path.leadTimes,
    routeDaysOfWeek: path.routeDaysOfWeek,
    pickingDays: origin?.pickingDayNames ?? [],
    processingDays: origin?.node.processingDays ?? null,
    deliveryDates: dateTextsOf(dispatch.deliveries, (option) => option.date),
    deliveryTrace: mapForJson(dispatch.deliveries, (option) => ({
      deliveryDate: formatDay(option.date),
      details,
      deliveryWindows: deliveryWindowsOf(option)
    })),
    arriveDates
  }
}

/**
 * Parts of a planned dispatch, kept with its plan once the plan is reused: a plan is shared only by
 * dispatches of the same origin, destination, mode, type and units (PlanCache.ts), and the parts
 * depend on nothing else.
 */
const partsByPlan = new WeakMap<PathPlan, { readonly units: number; readonly parts: DispatchParts }>()

const sharedPartsOf = (dispatch: DispatchResult): DispatchParts => {
  const plan = dispatch.plan
  if (plan === undefined) return partsOf(dispatch)
  const kept = partsByPlan.get(plan)
  if (kept !== undefined && kept.units === dispatch.units) return kept.parts
  const parts = partsOf(dispatch)
  if (!isReusedPlan(plan)) return parts
  partsByPlan.set(plan, { units: dispatch.units, parts })
  markJsonLasting(parts.leadTimes, parts.routeDaysOfWeek, parts.pickingDays, parts.deliveryDates, parts.deliveryTrace, parts.arriveDates)
  return parts
}

interface Outcome {
  readonly deliveryCost: number | null
  readonly pickingDate: string | null
  readonly deliveryDates: ReadonlyArray<string>
  readonly deliveryTrace: ReadonlyArray<DeliveryTrace>
  readonly message: string
  readonly arriveDates: ReadonlyArray<ArriveDateA>
  readonly detailedCapacityError: ReadonlyArray<CapacityErrorA>
}

// Field by field in the spec's order (object spread with extra properties is a slow path in V8).
const deliveryResult = (
  source: DispatchItemA,
  dispatch: DispatchResult,
  parts: DispatchParts,
  outcome: Outcome
): DeliveryResult => ({
  skuCode: source.skuCode,
  line: source.line ?? null,
  dispatchCode: parts.dispatchCode,
  deliveryCost: outcome.deliveryCost,
  measurable: source.measurable ?? null,
  origin: source.origin,
  zone: dispatch.deliveryMode === "HOME_DELIVERY" ? dispatch.destination : source.zone,
  pickingDays: parts.pickingDays,
  processingDays: parts.processingDays,
  leadTimes: parts.leadTimes,
  routeDaysOfWeek: parts.routeDaysOfWeek,
  route: parts.route,
  pickingDate: outcome.pickingDate,
  deliveryDates: outcome.deliveryDates,
  deliveryTrace: outcome.deliveryTrace,
  message: outcome.message,
  division: source.division ?? null,
  arriveDates: outcome.arriveDates,
  detailedCapacityError: outcome.detailedCapacityError
})

const stockOutcome = (shortage: StockShortage, purchaseDate: string): Outcome => {
  const message = `stock of ${shortage.sku} at ${shortage.node}: requested ${shortage.requested}, available ${shortage.available}`
  return {
    deliveryCost: null,
    pickingDate: null,
    deliveryDates: [],
    deliveryTrace: [],
    message,
    arriveDates: [],
    detailedCapacityError: [{
      code: "STOCK_ERROR",
      details: [{
        errorCode: "SOLD_OUT_QUANTITY",
        description: message,
        sku: shortage.sku,
        requestedQuantity: shortage.requested,
        availableQuantity: shortage.available
      }],
      providerDetails: {
        providerCode: shortage.node,
        availableCapacity: shortage.available,
        usedCapacity: shortage.taken,
        totalCapacity: shortage.stock,
        date: purchaseDate
      }
    }]
  }
}

const resultOf = (
  source: DispatchItemA,
  result: ItemResult,
  parts: DispatchParts,
  purchaseDate: string
): DeliveryResult => {
  const { dispatch, stockShortage } = result
  if (stockShortage !== undefined) return deliveryResult(source, dispatch, parts, stockOutcome(stockShortage, purchaseDate))
  return deliveryResult(source, dispatch, parts, {
    deliveryCost: dispatch.status === "PLANNED" ? result.cost : null,
    pickingDate: dateText(dispatch.pickingDate),
    deliveryDates: parts.deliveryDates,
    deliveryTrace: parts.deliveryTrace,
    message: dispatch.message,
    arriveDates: parts.arriveDates,
    detailedCapacityError: dispatch.shortage === undefined
      ? []
      : [capacityError(dispatch.shortage, source.skuCode, dispatch.message)]
  })
}

/** Variant A end to end on a decoded request: one DeliveryResult per item, or 404 when nothing routes. */
export const evaluateVariantA = (
  snapshot: Snapshot,
  request: DeliveryRequestA,
  epochMillis: number,
  options: EngineOptions = defaultEngineOptions
): Result.Result<ReadonlyArray<DeliveryResult>, NoRouteFound> => {
  const evaluation = evaluate(snapshot, engineRequestOfA(request), epochMillis, options)
  if (!evaluation.anyRouted) {
    const reasons = [...new Set(evaluation.dispatches.map((dispatch) => dispatch.message))].join("; ")
    return Result.fail(new NoRouteFound({ message: `no route found for any dispatch: ${reasons}` }))
  }
  const parts = new Map<DispatchResult, DispatchParts>()
  const results: Array<DeliveryResult> = []
  evaluation.items.forEach((result, index) => {
    const source = request.items[index]
    if (source === undefined) return
    let shared = parts.get(result.dispatch)
    if (shared === undefined) {
      shared = sharedPartsOf(result.dispatch)
      parts.set(result.dispatch, shared)
    }
    results.push(resultOf(source, result, shared, request.purchaseDate))
  })
  return Result.succeed(results)
}
