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
  NetworkRoute
} from "./Network.ts"
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


export const stockKey = (node: string, sku: string): string => `${node}|${sku}`

/** Destination is a zone code (home delivery) or a pickup node code (store withdrawal). */
export const pathKey = (origin: string, dispatchType: DispatchType, mode: DeliveryMode, destination: string): string =>
  `${origin}|${dispatchType}|${mode}|${destination}`

const dayOrNever = (text: string): Day => Option.getOrElse(parseDay(text), () => Number.NaN)
const clockOrMidnight = (text: string): number => Option.getOrElse(parseClock(text), () => 0)

const poolsOf = (
  tag: "Picking" | "NodeDispatch",
  node: string,
  capacity: CapacityByDispatchType,
  cells: UsageCells
): Record<DispatchType, PoolModel> => {
  const pool = (name: CapacityPool, total: number): PoolModel =>
    new LivePool(name, total, cells({ _tag: tag, node, pool: name }))
  if (typeof capacity === "number") {
    const shared = pool("ALL", capacity)
    return { NORMAL: shared, EXPRESS: shared }
  }
  return { NORMAL: pool("NORMAL", capacity.NORMAL), EXPRESS: pool("EXPRESS", capacity.EXPRESS) }
}

// Classes, not object literals with getters: one shared prototype getter keeps the engine's
// property reads monomorphic (a getter per literal made evaluation several times slower).
class LivePool implements PoolModel {
  constructor(readonly pool: CapacityPool, readonly total: number, private readonly cell: UsageCell) {}
  get used(): ReadonlyMap<Day, number> {
    return this.cell.current
  }
}

class LiveWindow implements WindowModel {
  constructor(
    readonly code: string,
    readonly start: string,
    readonly end: string,
    readonly capacity: number,
    private readonly cell: UsageCell
  ) {}
  get used(): ReadonlyMap<Day, number> {
    return this.cell.current
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
  constructor(fields: Omit<RouteModel, "used">, private readonly cell: UsageCell) {
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
 * whole when they change); without it, the document's stock, held once.
 */
export const buildSnapshotOn = (
  document: NetworkDocument,
  cells: UsageCells,
  options: SnapshotOptions = defaultSnapshotOptions,
  stock: StockView = stockBoardOf(document.stock)
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
    nodes.set(node.code, {
      code: node.code,
      node,
      calendar: { days, holidays: new Set(node.holidays.map(dayOrNever)) },
      pickingDayNames: namesOfMask(days),
      cutoffMinute: clockOrMidnight(node.pickingCutoff),
      timeZoneIndex,
      picking: poolsOf("Picking", node.code, node.pickingCapacity, cells),
      dispatch: poolsOf("NodeDispatch", node.code, node.dispatchCapacity, cells)
    })
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
    }, cells({ _tag: "RouteDeparture", route: route.id }))
    routes.set(route.id, model)
    const list = outgoing.get(route.source) ?? []
    list.push(model)
    outgoing.set(route.source, list)
  }

  const zones = new Map<string, ZoneModel>()
  const zoneByUbigeo = new Map<string, ZoneModel>()
  for (const zone of document.zones) {
    const model: ZoneModel = {
      code: zone.code,
      deliveryDays: zone.deliveryDays.length === 0 ? ALL_DAYS : maskOf(zone.deliveryDays),
      blocked: new Set(zone.blockedDates.map(dayOrNever)),
      windows: zone.windows.map((window): WindowModel =>
        new LiveWindow(window.code, window.start, window.end, window.capacity, cells({ _tag: "ZoneWindow", zone: zone.code, window: window.code }))
      )
    }
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

/** Limits for Ledger.consume, read from the network of a snapshot. */
export const capacityLimits = (snapshot: Snapshot): CapacityLimits => (resource) => {
  switch (resource._tag) {
    case "Picking":
    case "NodeDispatch": {
      const node = snapshot.nodes.get(resource.node)
      if (node === undefined) return undefined
      const pools = resource._tag === "Picking" ? node.picking : node.dispatch
      const pool = resource.pool === "ALL" ? pools.NORMAL : pools[resource.pool]
      return pool.pool === resource.pool ? pool.total : undefined
    }
    case "RouteDeparture":
      return snapshot.routes.get(resource.route)?.capacity
    case "ZoneWindow":
      return snapshot.zones.get(resource.zone)?.windows.find((window) => window.code === resource.window)?.capacity
  }
}
