import {
  addLeadTime,
  addWorkingDays,
  type Day,
  firstWorkingDayFrom,
  formatDay,
  inMask,
  isWorkingDay,
  type LocalClock
} from "./Calendar.ts"
import type {
  CapacityShortage,
  DeliveryOption,
  EngineOptions,
  LegPlan,
  PathPlan,
  ShortageKind,
  WindowSlot
} from "./EngineTypes.ts"
import type { DeliveryMode, DispatchType } from "./Network.ts"
import { totalOn } from "./Snapshot.ts"
import type { NodeModel, PoolModel, RoutePath, Snapshot, ZoneModel } from "./SnapshotModel.ts"

/** Per-request state: the instant, and each time zone's local clock computed at most once. */
export interface PlanContext {
  readonly snapshot: Snapshot
  readonly epochMillis: number
  readonly clocks: Array<LocalClock | undefined>
  readonly options: EngineOptions
  readonly deliveryFrom: Day | undefined
  readonly deliveryUntil: Day | undefined
  /**
   * While set, `planPath` appends every usage value it reads (map, day, value). A plan is a
   * function of the values it read, so the plan cache can keep it when an order replaces a map
   * but leaves those days as they were (PlanCache.ts).
   */
  usageReads: Array<UsageRead> | undefined
}

export const clockOf = (context: PlanContext, node: NodeModel): LocalClock => {
  const cached = context.clocks[node.timeZoneIndex]
  if (cached !== undefined) return cached
  const zoneClock = context.snapshot.zoneClocks[node.timeZoneIndex]
  const clock = zoneClock === undefined ? { today: 0, minute: 0 } : zoneClock.at(context.epochMillis)
  context.clocks[node.timeZoneIndex] = clock
  return clock
}

export interface DispatchToPlan {
  readonly origin: NodeModel
  readonly dispatchType: DispatchType
  readonly deliveryMode: DeliveryMode
  /** Zone for home delivery; undefined for store withdrawal (the path ends at the store). */
  readonly zone: ZoneModel | undefined
  readonly pickupNode: NodeModel | undefined
  readonly units: number
  readonly purchaseDate: Day
}


/** Tracks the first refused day of a search, to report it if nothing fits. */
interface Refusal {
  kind: ShortageKind
  provider: string
  date: Day
  used: number
  total: number
}

const shortageOf = (refusal: Refusal, requested: number): CapacityShortage => ({
  kind: refusal.kind,
  provider: refusal.provider,
  date: refusal.date,
  requested,
  used: refusal.used,
  total: refusal.total,
  available: Math.max(0, refusal.total - refusal.used)
})

/** One usage value a plan read: the map, the day and the value, flat in `PlanContext.usageReads`. */
export type UsageRead = ReadonlyMap<Day, number> | number

const usedOn = (context: PlanContext, used: ReadonlyMap<Day, number>, day: Day): number => {
  const value = used.get(day) ?? 0
  context.usageReads?.push(used, day, value)
  return value
}

/** First working day at the node on or after `day`, then `processingDays` working days later. */
const readyAfter = (node: NodeModel, day: Day, processingDays: number): Day | undefined => {
  const first = firstWorkingDayFrom(node.calendar, day)
  return first === undefined ? undefined : addWorkingDays(node.calendar, first, processingDays)
}

// Built field by field: object spread with extra properties is a slow path in V8.
const finish = (
  base: Omit<PathPlan, "shortage" | "message" | "deliveries">,
  deliveries: ReadonlyArray<DeliveryOption>,
  message: string,
  shortage: CapacityShortage | undefined
): PathPlan => ({
  path: base.path,
  pickingDate: base.pickingDate,
  usedPickingCapacity: base.usedPickingCapacity,
  readyDate: base.readyDate,
  legs: base.legs,
  deliveries,
  shortage,
  message
})

const failed = (
  base: Omit<PathPlan, "shortage" | "message" | "deliveries">,
  message: string,
  shortage: CapacityShortage | undefined
): PathPlan => finish(base, [], message, shortage)

/**
 * Plan one dispatch along one path: picking date, each leg's departure and reception, then the
 * delivery (or pickup) dates. Every search runs day by day from its earliest date and rolls over
 * full days, never past `start + horizonDays`.
 */
export const planPath = (context: PlanContext, dispatch: DispatchToPlan, path: RoutePath): PathPlan => {
  const { origin, units } = dispatch
  const originClock = clockOf(context, origin)
  const start = Math.max(dispatch.purchaseDate, originClock.today)
  const horizonEnd = start + context.options.horizonDays
  const base = { path, pickingDate: undefined, usedPickingCapacity: 0, readyDate: undefined, legs: [] }

  // 1. Picking at the origin.
  const picking: PoolModel = origin.picking[dispatch.dispatchType]
  const pickingTotals = picking.totals
  const originCalendar = origin.calendar
  let refusal: Refusal | undefined
  let pickingDate: Day | undefined
  let usedPickingCapacity = 0
  for (let day = start; day <= horizonEnd; day++) {
    if (!isWorkingDay(originCalendar, day)) continue
    if (day === originClock.today && originClock.minute >= origin.cutoffMinute) continue
    const used = usedOn(context, picking.used, day)
    const total = totalOn(pickingTotals, picking.total, day)
    if (used + units <= total) {
      pickingDate = day
      usedPickingCapacity = used
      break
    }
    refusal ??= { kind: "PICKING_CAPACITY", provider: origin.code, date: day, used, total }
    // Over the network's capacity no day fits (an override only lowers or raises one day).
    if (units > total && pickingTotals.size === 0) break
  }
  if (pickingDate === undefined) {
    return refusal === undefined
      ? failed(base, `no picking day at ${origin.code} within ${context.options.horizonDays} days`, undefined)
      : failed(base, capacityMessage(refusal, units), shortageOf(refusal, units))
  }
  const readyDate = addWorkingDays(originCalendar, pickingDate, origin.node.processingDays)
  const planned = { path, pickingDate, usedPickingCapacity, readyDate, legs: [] as Array<LegPlan> }
  if (readyDate === undefined) return failed(planned, `${origin.code} has no working day to process`, undefined)

  // 2. Each leg: departure on a departure day, not a source holiday, before the cut-off if today,
  //    with room on the departure and in the source node's daily dispatch capacity.
  let readyAtSource: Day = readyDate
  for (let index = 0; index < path.length; index++) {
    const route = path[index]
    if (route === undefined) break
    const source = route.source
    const sourceClock = clockOf(context, source)
    const nodePool = source.dispatch[dispatch.dispatchType]
    const routeTotals = route.totals
    const nodeTotals = nodePool.totals
    const sourceHolidays = source.calendar.holidays
    let departure: Day | undefined
    let usedRoute = 0
    let usedNode = 0
    refusal = undefined
    for (let day = readyAtSource; day <= horizonEnd; day++) {
      if (!inMask(route.departureDays, day) || sourceHolidays.has(day)) continue
      if (day === sourceClock.today && sourceClock.minute >= route.cutoffMinute) continue
      const onRoute = usedOn(context, route.used, day)
      const routeTotal = totalOn(routeTotals, route.capacity, day)
      if (onRoute + units > routeTotal) {
        refusal ??= { kind: "ROUTE_CAPACITY", provider: route.id, date: day, used: onRoute, total: routeTotal }
        if (units > routeTotal && routeTotals.size === 0) break
        continue
      }
      const atNode = usedOn(context, nodePool.used, day)
      const nodeTotal = totalOn(nodeTotals, nodePool.total, day)
      if (atNode + units > nodeTotal) {
        refusal ??= { kind: "NODE_DISPATCH_CAPACITY", provider: source.code, date: day, used: atNode, total: nodeTotal }
        if (units > nodeTotal && nodeTotals.size === 0) break
        continue
      }
      departure = day
      usedRoute = onRoute
      usedNode = atNode
      break
    }
    if (departure === undefined) {
      return refusal === undefined
        ? failed(planned, `no departure of route ${route.id} within the horizon`, undefined)
        : failed(planned, capacityMessage(refusal, units), shortageOf(refusal, units))
    }
    const reception = addLeadTime(departure, route.leadTime.days, route.leadTime.unit, sourceHolidays)
    if (reception === undefined) return failed(planned, `route ${route.id} has no business day to arrive`, undefined)
    const target = route.targetNode
    planned.legs.push({
      route,
      target: target?.code ?? dispatch.zone?.code ?? "",
      dispatchDate: readyAtSource,
      departureDate: departure,
      receptionDate: reception,
      usedRouteCapacity: usedRoute,
      usedNodeDispatch: usedNode
    })
    if (target !== undefined && index < path.length - 1) {
      const ready = readyAfter(target, reception, target.node.processingDays)
      if (ready === undefined) return failed(planned, `${target.code} has no working day to cross-dock`, undefined)
      readyAtSource = ready
    } else {
      readyAtSource = reception
    }
  }

  // 3. Delivery dates in the zone, or pickup dates at the store.
  const from = Math.max(readyAtSource, context.deliveryFrom ?? readyAtSource)
  const until = Math.min(horizonEnd, context.deliveryUntil ?? horizonEnd)
  const wanted = context.options.deliveryDatesCount
  const deliveries: Array<DeliveryOption> = []
  refusal = undefined
  if (dispatch.zone !== undefined) {
    const zone = dispatch.zone
    const blockedDays = zone.blocked
    for (let day = from; day <= until && deliveries.length < wanted; day++) {
      if (!inMask(zone.deliveryDays, day) || blockedDays.has(day)) continue
      let free = false
      let open = false
      let used = 0
      let total = 0
      for (const window of zone.windows) {
        if (window.blocked.get(day) === 1) continue
        open = true
        const inWindow = usedOn(context, window.used, day)
        const capacity = totalOn(window.totals, window.capacity, day)
        used += inWindow
        total += capacity
        if (inWindow < capacity) free = true
      }
      // Every window blocked by a network change: the date is blocked, as a zone's blocked date is.
      if (!open) continue
      if (!free) {
        refusal ??= { kind: "ZONE_WINDOW_CAPACITY", provider: zone.code, date: day, used, total }
        continue
      }
      const slots: Array<WindowSlot> = []
      for (const window of zone.windows) {
        const inWindow = usedOn(context, window.used, day)
        slots.push({
          window,
          used: inWindow,
          blocked: window.blocked.get(day) === 1 || inWindow >= totalOn(window.totals, window.capacity, day)
        })
      }
      deliveries.push({ date: day, windows: slots })
    }
  } else {
    const store = dispatch.pickupNode ?? origin
    const firstPickup = path.length === 0 ? from : readyAfter(store, from, store.node.processingDays)
    for (let day = firstPickup ?? until + 1; day <= until && deliveries.length < wanted; day++) {
      if (isWorkingDay(store.calendar, day)) deliveries.push({ date: day, windows: [] })
    }
  }
  if (deliveries.length === 0) {
    return refusal === undefined
      ? finish(planned, deliveries, `no delivery date within the horizon (until ${formatDay(until)})`, undefined)
      : finish(planned, deliveries, capacityMessage(refusal, 1), shortageOf(refusal, 1))
  }
  return finish(planned, deliveries, "OK", undefined)
}

const SHORTAGE_LABEL: Readonly<Record<ShortageKind, string>> = {
  PICKING_CAPACITY: "picking capacity of",
  NODE_DISPATCH_CAPACITY: "dispatch capacity of",
  ROUTE_CAPACITY: "capacity of route",
  ZONE_WINDOW_CAPACITY: "delivery capacity of zone"
}

const capacityMessage = (refusal: Refusal, requested: number): string =>
  requested > refusal.total
    ? `${requested} units exceed the daily ${SHORTAGE_LABEL[refusal.kind]} ${refusal.provider} (${refusal.total})`
    : `${SHORTAGE_LABEL[refusal.kind]} ${refusal.provider} is full from ${formatDay(refusal.date)} within the horizon`
