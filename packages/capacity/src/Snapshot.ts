import { Option } from "effect"
import {
  ALL_DAYS,
  type Day,
  type DayMask,
  type DayOfWeek,
  maskOf,
  namesOfMask,
  parseClock,
  parseDay,
  type WorkCalendar,
  ZoneClock,
  zoneFormatter
} from "./Calendar.ts"
import type { CapacityLimits, CapacityPool, Ledger } from "./Ledger.ts"
import type {
  CapacityByDispatchType,
  CostRule,
  DeliveryMode,
  DispatchType,
  LeadTime,
  NetworkDocument,
  NetworkNode,
  NetworkRoute
} from "./Network.ts"
import { type ChangeCell, type ChangeCells, noChanges } from "./NetworkChangeBoard.ts"
import { searchPaths } from "./Routing.ts"
import {
  defaultSnapshotOptions,
  type NodeModel,
  type PoolModel,
  type RouteModel,
  type Snapshot,
  type SnapshotOptions,
  type WindowModel,
  type ZoneModel
} from "./SnapshotModel.ts"
import { stockBoardOf, type StockView } from "./StockBoard.ts"
import { fixedCells, type UsageCell, type UsageCells } from "./UsageCells.ts"

const dayOrNever = (text: string): Day => Option.getOrElse(parseDay(text), () => Number.NaN)
const clockOrMidnight = (text: string): number => Option.getOrElse(parseClock(text), () => 0)

const poolsOf = (
  tag: "Picking" | "NodeDispatch",
  node: string,
  capacity: CapacityByDispatchType,
  cells: UsageCells,
  changes: ChangeCells
): Record<DispatchType, PoolModel> => {
  const kind = tag === "Picking" ? "PICKING_CAPACITY" : "NODE_DISPATCH_CAPACITY"
  const pool = (name: CapacityPool, total: number): PoolModel =>
    new LivePool(name, total, cells({ _tag: tag, node, pool: name }), changes(kind, node, name))
  if (typeof capacity === "number") {
    const shared = pool("ALL", capacity)
    return { NORMAL: shared, EXPRESS: shared }
  }
  return { NORMAL: pool("NORMAL", capacity.NORMAL), EXPRESS: pool("EXPRESS", capacity.EXPRESS) }
}

// Classes, not object literals with getters: one shared prototype getter keeps the engine's
// property reads monomorphic (a getter per literal made evaluation several times slower).
class LivePool implements PoolModel {
  constructor(
    readonly pool: CapacityPool,
    readonly total: number,
    private readonly cell: UsageCell,
    private readonly overrides: ChangeCell
  ) {}
  get used(): ReadonlyMap<Day, number> {
    return this.cell.current
  }
  get totals(): ReadonlyMap<Day, number> {
    return this.overrides.current
  }
}

class LiveWindow implements WindowModel {
  constructor(
    readonly code: string,
    readonly start: string,
    readonly end: string,
    readonly capacity: number,
    private readonly cell: UsageCell,
    private readonly overrides: ChangeCell,
    private readonly blocks: ChangeCell
  ) {}
  get used(): ReadonlyMap<Day, number> {
    return this.cell.current
  }
  get totals(): ReadonlyMap<Day, number> {
    return this.overrides.current
  }
  get blocked(): ReadonlyMap<Day, number> {
    return this.blocks.current
  }
}

/**
 * A document's dates (holidays, blocked dates) with those a change cell sets (1) or lifts (0),
 * merged again only when the cell holds another map: the same set (same identity) until then.
 */
class DatesWithChanges {
  private seen: ReadonlyMap<Day, number> | undefined
  private merged: ReadonlySet<Day>
  constructor(private readonly base: ReadonlySet<Day>, private readonly cell: ChangeCell) {
    this.merged = base
  }
  get current(): ReadonlySet<Day> {
    const changes = this.cell.current
    if (changes === this.seen) return this.merged
    this.seen = changes
    if (changes.size === 0) this.merged = this.base
    else {
      const next = new Set(this.base)
      for (const [day, set] of changes) {
        if (set === 1) next.add(day)
        else next.delete(day)
      }
      this.merged = next
    }
    return this.merged
  }
}

class LiveNode implements NodeModel {
  private holidaysSeen: ReadonlySet<Day> | undefined
  private workCalendar: WorkCalendar | undefined
  constructor(
    readonly code: string,
    readonly node: NetworkNode,
    private readonly days: number,
    private readonly holidays: DatesWithChanges,
    readonly pickingDayNames: ReadonlyArray<DayOfWeek>,
    readonly cutoffMinute: number,
    readonly timeZoneIndex: number,
    readonly picking: Readonly<Record<DispatchType, PoolModel>>,
    readonly dispatch: Readonly<Record<DispatchType, PoolModel>>
  ) {}
  /** The same object while the node's holidays are unchanged (plans compare it by identity). */
  get calendar(): WorkCalendar {
    const holidays = this.holidays.current
    if (holidays !== this.holidaysSeen || this.workCalendar === undefined) {
      this.holidaysSeen = holidays
      this.workCalendar = { days: this.days, holidays }
    }
    return this.workCalendar
  }
}

class LiveZone implements ZoneModel {
  constructor(
    readonly code: string,
    readonly deliveryDays: DayMask,
    private readonly blockedDates: DatesWithChanges,
    readonly windows: ReadonlyArray<WindowModel>
  ) {}
  get blocked(): ReadonlySet<Day> {
    return this.blockedDates.current
  }
}

class LiveRoute implements RouteModel {
  readonly id: string
  readonly route: NetworkRoute
  readonly source: NodeModel
  readonly targetNode: NodeModel | undefined
  readonly targetZones: ReadonlySet<string>
  readonly dispatchTypes: ReadonlySet<DispatchType>
  readonly deliveryModes: ReadonlySet<DeliveryMode>
  readonly departureDays: DayMask
  readonly departureDayNames: ReadonlyArray<DayOfWeek>
  readonly departureDaysText: string
  readonly cutoffMinute: number
  readonly leadTime: LeadTime
  readonly capacity: number
  readonly cost: CostRule
  constructor(fields: Omit<RouteModel, "used" | "totals">, private readonly cell: UsageCell, private readonly overrides: ChangeCell) {
    this.id = fields.id
    this.route = fields.route
    this.source = fields.source
    this.targetNode = fields.targetNode
    this.targetZones = fields.targetZones
    this.dispatchTypes = fields.dispatchTypes
    this.deliveryModes = fields.deliveryModes
    this.departureDays = fields.departureDays
    this.departureDayNames = fields.departureDayNames
    this.departureDaysText = fields.departureDaysText
    this.cutoffMinute = fields.cutoffMinute
    this.leadTime = fields.leadTime
    this.capacity = fields.capacity
    this.cost = fields.cost
  }
  get used(): ReadonlyMap<Day, number> {
    return this.cell.current
  }
  get totals(): ReadonlyMap<Day, number> {
    return this.overrides.current
  }
}

/**
 * Build the evaluation model from a validated network document (see decodeNetwork) and a fixed
 * ledger; its stock is the document's (`stockBoardOf`).
 */
export const buildSnapshot = (
  document: NetworkDocument,
  ledger: Ledger,
  options: SnapshotOptions = defaultSnapshotOptions
): Snapshot => buildSnapshotOn(document, fixedCells(ledger), options)

/**
 * Build the evaluation model over usage cells: every `used` of the snapshot reads its resource's
 * cell when evaluation asks, so a change of usage is seen without rebuilding the snapshot (only a
 * network change rebuilds it). Evaluation is synchronous, so one request sees one state of every cell.
 * Stock is read through `stock` the same way (the service's StockBoard, which replaces a SKU's rows
 * whole when they change); without it, the document's stock, held once. Network changes (capacity
 * overrides, holidays, blocked dates) are read through `changes` (a NetworkChangeBoard's cells), so
 * a change is seen without rebuilding either.
 */
export const buildSnapshotOn = (
  document: NetworkDocument,
  cells: UsageCells,
  options: SnapshotOptions = defaultSnapshotOptions,
  stock: StockView = stockBoardOf(document.stock),
  changes: ChangeCells = noChanges
): Snapshot => {
  const timeZones: Array<string> = []
  const zoneClocks: Array<ZoneClock> = []
  const nodes = new Map<string, NodeModel>()
  for (const node of document.nodes) {
    let timeZoneIndex = timeZones.indexOf(node.timeZone)
    if (timeZoneIndex < 0) {
      timeZoneIndex = timeZones.length
      timeZones.push(node.timeZone)
      zoneClocks.push(new ZoneClock(zoneFormatter(node.timeZone)))
    }
    const days = maskOf(node.pickingDays)
    nodes.set(node.code, new LiveNode(
      node.code,
      node,
      days,
      new DatesWithChanges(new Set(node.holidays.map(dayOrNever)), changes("HOLIDAY", node.code, "")),
      namesOfMask(days),
      clockOrMidnight(node.pickingCutoff),
      timeZoneIndex,
      poolsOf("Picking", node.code, node.pickingCapacity, cells, changes),
      poolsOf("NodeDispatch", node.code, node.dispatchCapacity, cells, changes)
    ))
  }

  const routes = new Map<string, RouteModel>()
  const outgoing = new Map<string, Array<RouteModel>>()
  for (const route of document.routes) {
    const source = nodes.get(route.source)
    if (source === undefined) continue
    const departureDays = maskOf(route.departureDays)
    const departureDayNames = namesOfMask(departureDays)
    const model: RouteModel = new LiveRoute({
      id: route.id,
      route,
      source,
      targetNode: route.target.kind === "NODE" ? nodes.get(route.target.node) : undefined,
      targetZones: new Set(route.target.kind === "ZONES" ? route.target.zones : []),
      dispatchTypes: new Set(route.dispatchTypes),
      deliveryModes: new Set(route.deliveryModes),
      departureDays,
      departureDayNames,
      departureDaysText: departureDayNames.join(","),
      cutoffMinute: clockOrMidnight(route.departureCutoff),
      leadTime: route.leadTime,
      capacity: route.capacityPerDeparture,
      cost: route.cost
    }, cells({ _tag: "RouteDeparture", route: route.id }), changes("ROUTE_CAPACITY", route.id, ""))
    routes.set(route.id, model)
    const list = outgoing.get(route.source) ?? []
    list.push(model)
    outgoing.set(route.source, list)
  }

  const zones = new Map<string, ZoneModel>()
  const zoneByUbigeo = new Map<string, ZoneModel>()
  for (const zone of document.zones) {
    const model: ZoneModel = new LiveZone(
      zone.code,
      zone.deliveryDays.length === 0 ? ALL_DAYS : maskOf(zone.deliveryDays),
      new DatesWithChanges(new Set(zone.blockedDates.map(dayOrNever)), changes("BLOCKED", zone.code, "")),
      zone.windows.map((window): WindowModel =>
        new LiveWindow(
          window.code,
          window.start,
          window.end,
          window.capacity,
          cells({ _tag: "ZoneWindow", zone: zone.code, window: window.code }),
          changes("ZONE_WINDOW_CAPACITY", zone.code, window.code),
          changes("BLOCKED", zone.code, window.code)
        )
      )
    )
    zones.set(zone.code, model)
    for (const ubigeo of zone.ubigeos) zoneByUbigeo.set(ubigeo, model)
  }

  return {
    document,
    nodes,
    routes,
    zones,
    zoneByUbigeo,
    outgoing,
    stock,
    zoneClocks,
    paths: searchPaths(nodes, outgoing, options)
  }
}

/** The capacity on `day`: an override's, or the network's. */
export const totalOn = (overrides: ReadonlyMap<Day, number>, total: number, day: Day): number => overrides.get(day) ?? total

/**
 * Limits for Ledger.consume, read from the network of a snapshot with its changes on the use's
 * date: an override's capacity, and none (0) in a window or zone blocked that date.
 */
export const capacityLimits = (snapshot: Snapshot): CapacityLimits => (resource, date) => {
  const day = dayOrNever(date)
  switch (resource._tag) {
    case "Picking":
    case "NodeDispatch": {
      const node = snapshot.nodes.get(resource.node)
      if (node === undefined) return undefined
      const pools = resource._tag === "Picking" ? node.picking : node.dispatch
      const pool = resource.pool === "ALL" ? pools.NORMAL : pools[resource.pool]
      return pool.pool === resource.pool ? totalOn(pool.totals, pool.total, day) : undefined
    }
    case "RouteDeparture": {
      const route = snapshot.routes.get(resource.route)
      return route === undefined ? undefined : totalOn(route.totals, route.capacity, day)
    }
    case "ZoneWindow": {
      const zone = snapshot.zones.get(resource.zone)
      const window = zone?.windows.find((candidate) => candidate.code === resource.window)
      if (zone === undefined || window === undefined) return undefined
      return zone.blocked.has(day) || window.blocked.get(day) === 1 ? 0 : totalOn(window.totals, window.capacity, day)
    }
  }
}
