import type { Day, DayMask, DayOfWeek, WorkCalendar, ZoneClock } from "./Calendar.ts"
import type { CapacityPool } from "./Ledger.ts"
import type { StockView } from "./StockBoard.ts"
import type { CostRule, DeliveryMode, DispatchType, LeadTime, NetworkDocument, NetworkNode, NetworkRoute } from "./Network.ts"

/** The legs from an origin to a destination, in order; empty when a store is its own pickup point. */
export type RoutePath = ReadonlyArray<RouteModel>

/** Candidate paths to one destination, by origin code: the keys are the origins that can ship there. */
export type PathsByOrigin = ReadonlyMap<string, ReadonlyArray<RoutePath>>

/**
 * Candidate paths by dispatch type, delivery mode, then destination (a zone code for home delivery,
 * a pickup store's code for store withdrawal): looked up by the codes a request already holds, no
 * key built per question.
 */
export type PathIndex = Readonly<Record<DispatchType, Readonly<Record<DeliveryMode, ReadonlyMap<string, PathsByOrigin>>>>>

/** Capacity of one pool per date, with what the ledger says is already used. */
export interface PoolModel {
  readonly pool: CapacityPool
  readonly total: number
  /** The capacity on the dates a network change overrides it (over `total`). */
  readonly totals: ReadonlyMap<Day, number>
  readonly used: ReadonlyMap<Day, number>
}

export interface NodeModel {
  readonly code: string
  readonly node: NetworkNode
  /** The document's picking days and holidays, with the holidays network changes set or lift. */
  readonly calendar: WorkCalendar
  readonly pickingDayNames: ReadonlyArray<DayOfWeek>
  readonly cutoffMinute: number
  readonly timeZoneIndex: number
  readonly picking: Readonly<Record<DispatchType, PoolModel>>
  readonly dispatch: Readonly<Record<DispatchType, PoolModel>>
}

export interface RouteModel {
  readonly id: string
  readonly route: NetworkRoute
  readonly source: NodeModel
  /** The next node, or undefined for a last-mile route into zones. */
  readonly targetNode: NodeModel | undefined
  readonly targetZones: ReadonlySet<string>
  readonly dispatchTypes: ReadonlySet<DispatchType>
  readonly deliveryModes: ReadonlySet<DeliveryMode>
  readonly departureDays: DayMask
  readonly departureDayNames: ReadonlyArray<DayOfWeek>
  /** Precomputed for the trace: "MON,WED,FRI". */
  readonly departureDaysText: string
  readonly cutoffMinute: number
  readonly leadTime: LeadTime
  readonly capacity: number
  /** The capacity on the dates a network change overrides it (over `capacity`). */
  readonly totals: ReadonlyMap<Day, number>
  readonly used: ReadonlyMap<Day, number>
  readonly cost: CostRule
}

export interface WindowModel {
  readonly code: string
  readonly start: string
  readonly end: string
  readonly capacity: number
  /** The capacity on the dates a network change overrides it (over `capacity`). */
  readonly totals: ReadonlyMap<Day, number>
  /** 1 on the dates a network change blocks this window (0: lifted again). */
  readonly blocked: ReadonlyMap<Day, number>
  readonly used: ReadonlyMap<Day, number>
}

export interface ZoneModel {
  readonly code: string
  readonly deliveryDays: DayMask
  /** The document's blocked dates, with those network changes set or lift. */
  readonly blocked: ReadonlySet<Day>
  readonly windows: ReadonlyArray<WindowModel>
}

/**
 * Everything evaluation needs, built once per network replacement and never mutated: indexes by code,
 * calendars as bit masks and day sets, time-zone clocks, candidate paths. Usage (`used` of
 * pools, routes and windows) is read through usage cells, whose owners replace their maps; the
 * network changes (capacity overrides, holidays, blocked dates) through change cells, likewise.
 */
export interface Snapshot {
  readonly document: NetworkDocument
  readonly nodes: ReadonlyMap<string, NodeModel>
  readonly routes: ReadonlyMap<string, RouteModel>
  readonly zones: ReadonlyMap<string, ZoneModel>
  readonly zoneByUbigeo: ReadonlyMap<string, ZoneModel>
  readonly outgoing: ReadonlyMap<string, ReadonlyArray<RouteModel>>
  /** Stock units by node and SKU: read when evaluation asks, like usage (the service's StockBoard, or the document's stock). */
  readonly stock: StockView
  /** One clock per distinct time zone; nodes refer to theirs by index. */
  readonly zoneClocks: ReadonlyArray<ZoneClock>
  /** Candidate paths by dispatch type, delivery mode, destination and origin, fewest legs first (`pathsTo`). */
  readonly paths: PathIndex
}

export interface SnapshotOptions {
  /** Longest path searched, in legs (a CD -> hub -> zone path has 2). */
  readonly maxLegs: number
  /** Paths kept per origin and destination. */
  readonly maxCandidates: number
}

export const defaultSnapshotOptions: SnapshotOptions = { maxLegs: 4, maxCandidates: 3 }
