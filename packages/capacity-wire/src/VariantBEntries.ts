import {
  type Day,
  type DeliveryMode,
  type DispatchResult,
  type DispatchType,
  type Evaluation,
  formatDay,
  isReusedPlan,
  type NodeModel,
  type PathPlan,
  type Snapshot,
  type StockShortage,
  type ZoneModel
} from "@retail/capacity"
import { mapForJson } from "./JsonArrays.ts"
import { markJsonLasting } from "./JsonTextReuse.ts"
import type {
  ArriveDateB,
  CapacityErrorB,
  DeliveryRequestB,
  DeliveryTraceB,
  EntityDetails,
  ItemB,
  LogisticsCapacity
} from "./VariantB.ts"
import { CAPACITY_ERROR_CODE, deliveryWindowsOf, traceDetailsOf } from "./DispatchTrace.ts"
import { dateTextsOf, pathPartsOf } from "./SharedParts.ts"
import { echoItem } from "./VariantBEcho.ts"

/** Building LogisticsCapacity entries of variant B from the engine's dispatch results. */

const dateText = (value: Day | undefined): string | null => (value === undefined ? null : formatDay(value))

export interface Line {
  readonly index: number
  /** The item as the answer's request echoes it (`echoItem` with no origin). */
  readonly item: ItemB
  readonly origin: string | undefined
  readonly units: number
  readonly weightKg: number
  /** The line's echo shipped from each origin, made once per answer (`shippedEcho`); made on the first. */
  shippedFrom: Map<string, ItemB> | undefined
}

/**
 * The line's item as a dispatch from `origin` echoes it, one object per origin in an answer, so
 * that its text is written once and repeated (VariantBText.ts): alternatives often ship a line from
 * the same origin, and a line with that origin already is its request echo.
 */
const shippedEcho = (line: Line, origin: string): ItemB => {
  if (line.item.origin === origin) return line.item
  line.shippedFrom ??= new Map()
  let echo = line.shippedFrom.get(origin)
  if (echo === undefined) {
    echo = echoItem(line.item, origin)
    line.shippedFrom.set(origin, echo)
  }
  return echo
}

export interface Alternative {
  readonly mode: DeliveryMode
  /** Store withdrawal: where the customer picks up. */
  readonly store: NodeModel | undefined
}

/** One per node model (a snapshot's models never change), so entries of one node share it and its text, across answers too. */
const entityOfNode = new WeakMap<NodeModel, EntityDetails>()

export const entityDetailsOf = (model: NodeModel | undefined): EntityDetails | null => {
  if (model === undefined) return null
  let entity = entityOfNode.get(model)
  if (entity === undefined) {
    entity = entityDetailsOfNode(model)
    entityOfNode.set(model, entity)
    markJsonLasting(entity)
  }
  return entity
}

const entityDetailsOfNode = (model: NodeModel): EntityDetails => {
  const node = model.node
  return {
    entityType: node.type,
    entityCode: node.code,
    name: node.name,
    shortName: node.shortName,
    platformWarehouseId: node.platformWarehouseId ?? null,
    platformDockId: node.platformDockId ?? null,
    contactNumber: node.contact.phone,
    pickupPointId: node.pickupPointId ?? null,
    deliveryTime: node.deliveryTime ?? null,
    addressInfo: node.address
  }
}


/** One list of dates per delivery window (in the zone's window order: dates that window has room); one list for pickup. */
const deliveryDatesOf = (dispatch: DispatchResult): ReadonlyArray<ReadonlyArray<string>> => {
  const first = dispatch.deliveries[0]
  if (first === undefined) return []
  if (first.windows.length === 0) return [dateTextsOf(dispatch.deliveries, (option) => option.date)]
  return mapForJson(first.windows, (_, windowIndex) =>
    dateTextsOf(dispatch.deliveries, (option) => {
      const slot = option.windows[windowIndex]
      return slot !== undefined && !slot.blocked ? option.date : undefined
    }))
}

/**
 * Variant A's trace with dates as strings (they are already) and `shippingEstimate` null. Every
 * date shares the dispatch's details, and dates whose windows are alike one windows list
 * (`deliveryWindowsOf`), written once by encodeDeliveryResponseB.
 */
const traceOf = (dispatch: DispatchResult): ReadonlyArray<DeliveryTraceB> => {
  const details = traceDetailsOf(dispatch)
  return mapForJson(dispatch.deliveries, (option) => ({
    deliveryDate: formatDay(option.date),
    shippingEstimate: null,
    details,
    deliveryWindows: deliveryWindowsOf(option)
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
  provider: string | null,
  message: string,
  short: ReadonlyArray<{ readonly sku: string; readonly requested: number; readonly available: number; readonly description: string }>
): CapacityErrorB => ({
  code: "STOCK_ERROR",
  details: mapForJson(short, (line) => ({
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
    detailStock: mapForJson(short, (line) => ({
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
    details: mapForJson(shipped, (line) => ({
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

/** Parts of an entry that depend only on the dispatch's plan and units. */
interface PlanParts {
  readonly units: number
  readonly leadTimes: ReadonlyArray<number>
  readonly routeDaysOfWeek: ReadonlyArray<ReadonlyArray<string>>
  readonly deliveryDates: ReadonlyArray<ReadonlyArray<string>>
  readonly deliveryTrace: ReadonlyArray<DeliveryTraceB>
  readonly arriveDates: ReadonlyArray<ArriveDateB>
}

/**
 * Kept with the plan once it is reused: a plan is shared only by dispatches of the same origin, destination, mode,
 * type and units (PlanCache.ts), so equal dispatches share these parts and their text.
 */
const partsByPlan = new WeakMap<PathPlan, PlanParts>()

const planPartsOf = (dispatch: DispatchResult): PlanParts => {
  const plan = dispatch.plan
  const kept = plan === undefined ? undefined : partsByPlan.get(plan)
  if (kept !== undefined && kept.units === dispatch.units) return kept
  const path = pathPartsOf(dispatch.path)
  const parts: PlanParts = {
    units: dispatch.units,
    leadTimes: path.leadTimes,
    routeDaysOfWeek: path.routeDaysOfWeek,
    deliveryDates: deliveryDatesOf(dispatch),
    deliveryTrace: traceOf(dispatch),
    arriveDates: arriveDatesOf(dispatch)
  }
  if (plan !== undefined && isReusedPlan(plan)) {
    partsByPlan.set(plan, parts)
    markJsonLasting(parts.leadTimes, parts.routeDaysOfWeek, parts.deliveryDates, parts.deliveryTrace, parts.arriveDates)
    if (dispatch.originNode !== undefined) markJsonLasting(dispatch.originNode.pickingDayNames)
    for (const trace of parts.deliveryTrace) markJsonLasting(trace.details, trace.deliveryWindows)
  }
  return parts
}

export interface EntryContext {
  readonly snapshot: Snapshot
  readonly request: DeliveryRequestB
  readonly dispatchType: DispatchType
  readonly zone: ZoneModel | undefined
  readonly costEnabled: boolean
}

const destinationOf = (context: EntryContext, alternative: Alternative): string | null =>
  alternative.store?.code ??
    context.request.deliveryData.destination ?? context.request.deliveryData.ubigeoCode ?? context.zone?.code ?? null

const zoneOf = (context: EntryContext, alternative: Alternative): string | null =>
  alternative.store === undefined
    ? (context.zone?.code ?? context.request.deliveryData.zone ?? null)
    : (context.snapshot.zoneByUbigeo.get(alternative.store.node.address.ubigeoCode)?.code ?? null)

export const entryOfDispatch = (
  context: EntryContext,
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
      mapForJson(short, ({ shortage }) => ({
        sku: shortage.sku,
        requested: shortage.requested,
        available: shortage.available,
        description: stockMessage(shortage.sku, shortage.node, shortage.requested, shortage.available)
      }))
    ))
  }
  const origin = dispatch.originNode
  const parts = planPartsOf(dispatch)
  return {
    origin: dispatch.origin,
    destination: destinationOf(context, alternative),
    zone: zoneOf(context, alternative),
    route: pathPartsOf(dispatch.path).route,
    pickingDate: dateText(dispatch.pickingDate),
    message: dispatch.message,
    dispatchType: dispatch.dispatchType,
    dispatchMode: dispatch.deliveryMode,
    deliveryCost: dispatch.status !== "PLANNED" ? null : context.costEnabled ? dispatch.cost : 0,
    pickingDays: origin?.pickingDayNames ?? [],
    processingDays: origin?.node.processingDays ?? null,
    leadTimes: parts.leadTimes,
    routeDaysOfWeek: parts.routeDaysOfWeek,
    deliveryDates: parts.deliveryDates,
    originEntityDetails: entityDetailsOf(origin),
    pickupEntityDetails: entityDetailsOf(alternative.store),
    deliveryTrace: parts.deliveryTrace,
    arriveDates: parts.arriveDates,
    detailedCapacityError: errors,
    dispatchItems: mapForJson(shipped, (line) => shippedEcho(line, dispatch.origin))
  }
}

export const unservedEntry = (
  context: EntryContext,
  alternative: Alternative,
  unserved: ReadonlyArray<{ readonly line: Line; readonly available: number }>,
  maxDistanceKm: number
): LogisticsCapacity => {
  const range = Number.isFinite(maxDistanceKm) ? ` within ${maxDistanceKm} km` : ""
  const message = `no origin${range} can serve ${unserved.length} item(s)`
  return {
    origin: null,
    destination: destinationOf(context, alternative),
    zone: zoneOf(context, alternative),
    route: null,
    pickingDate: null,
    message,
    dispatchType: context.dispatchType,
    dispatchMode: alternative.mode,
    deliveryCost: null,
    pickingDays: [],
    processingDays: null,
    leadTimes: [],
    routeDaysOfWeek: [],
    deliveryDates: [],
    originEntityDetails: null,
    pickupEntityDetails: entityDetailsOf(alternative.store),
    deliveryTrace: [],
    arriveDates: [],
    detailedCapacityError: [stockError(
      null,
      message,
      mapForJson(unserved, ({ available, line }) => ({
        sku: line.item.skuCode,
        requested: line.units,
        available,
        description: `no origin${range} with a route to ${destinationOf(context, alternative) ?? "the destination"} holds ${line.units} units of ${line.item.skuCode} (most at one origin: ${available})`
      }))
    )],
    dispatchItems: []
  }
}


/** One entry per dispatch of an evaluation; `lines[i]` is the request line of the evaluation's item i. */
export const entriesOfEvaluation = (
  context: EntryContext,
  alternative: Alternative,
  evaluation: Evaluation,
  lines: ReadonlyArray<Line>
): Array<LogisticsCapacity> =>
  mapForJson(evaluation.dispatches, (dispatch) => {
    const shipped: Array<Line> = []
    const short: Array<{ line: Line; shortage: StockShortage }> = []
    evaluation.items.forEach((result, i) => {
      const line = lines[i]
      if (result.dispatch !== dispatch || line === undefined) return
      if (result.stockShortage === undefined) shipped.push(line)
      else short.push({ line, shortage: result.stockShortage })
    })
    return entryOfDispatch(context, alternative, dispatch, shipped, short)
  })
