import type { Day } from "./Calendar.ts"
import type { DeliveryMode, DispatchType } from "./Network.ts"
import type { NodeModel, RouteModel, RoutePath, WindowModel } from "./SnapshotModel.ts"

/** One item line, normalised from any request variant. */
export interface EngineItem {
  readonly sku: string
  readonly origin: string
  /** Units counted against picking, dispatch and departure capacity, and against stock. */
  readonly units: number
  /** Weight of the whole line in kg (drives the cost rule). */
  readonly weightKg: number
  readonly dispatchType: DispatchType
  readonly deliveryMode: DeliveryMode
  /** Home delivery: a zone code, else the zone covering `ubigeo`. */
  readonly zone?: string | undefined
  readonly ubigeo?: string | undefined
  /** Store withdrawal: the store (node code) where the customer picks up. */
  readonly pickupNode?: string | undefined
}

export interface EngineRequest {
  readonly purchaseDate: Day
  readonly items: ReadonlyArray<EngineItem>
  readonly validateStock: boolean
  /** Only offer delivery dates in this range (variant B's rangeStart / rangeEnd). */
  readonly deliveryFrom?: Day | undefined
  readonly deliveryUntil?: Day | undefined
}

export interface EngineOptions {
  /** No date later than the first possible picking day + horizonDays is planned. */
  readonly horizonDays: number
  /** How many delivery dates to offer. */
  readonly deliveryDatesCount: number
}

export const defaultEngineOptions: EngineOptions = { horizonDays: 30, deliveryDatesCount: 5 }

export interface LegPlan {
  readonly route: RouteModel
  /** Next node code, or the destination zone code for a last-mile leg. */
  readonly target: string
  /** When the units are ready to leave the source node. */
  readonly dispatchDate: Day
  readonly departureDate: Day
  readonly receptionDate: Day
  /** Units already on this departure before this dispatch. */
  readonly usedRouteCapacity: number
  /** Units the source node already dispatches that day before this dispatch. */
  readonly usedNodeDispatch: number
}

export interface WindowSlot {
  readonly window: WindowModel
  readonly used: number
  readonly blocked: boolean
}

export interface DeliveryOption {
  readonly date: Day
  /** Empty for store withdrawal. */
  readonly windows: ReadonlyArray<WindowSlot>
}

export type ShortageKind = "PICKING_CAPACITY" | "NODE_DISPATCH_CAPACITY" | "ROUTE_CAPACITY" | "ZONE_WINDOW_CAPACITY"

/** Capacity that refused the dispatch: on `date`, the first day it was wanted. */
export interface CapacityShortage {
  readonly kind: ShortageKind
  /** Node, route or zone code. */
  readonly provider: string
  readonly date: Day
  readonly requested: number
  readonly used: number
  readonly total: number
  readonly available: number
}

export interface StockShortage {
  readonly node: string
  readonly sku: string
  readonly requested: number
  /** Units left at the node: its stock less what earlier lines of the request took. */
  readonly available: number
  /** Units earlier lines of the request took at the node. */
  readonly taken: number
  /** The node's stock of the SKU. */
  readonly stock: number
}

export type DispatchStatus = "PLANNED" | "NO_ROUTE" | "NO_CAPACITY" | "NO_DATE" | "NO_STOCK"

export interface DispatchResult {
  /** Stable for one dispatch: origin, destination, dispatch type and delivery mode. */
  readonly code: string
  readonly status: DispatchStatus
  readonly message: string
  readonly origin: string
  readonly originNode: NodeModel | undefined
  readonly dispatchType: DispatchType
  readonly deliveryMode: DeliveryMode
  /** Zone code (home delivery) or pickup store code; "" when it could not be resolved. */
  readonly destination: string
  /** Units of the items that passed the stock check. */
  readonly units: number
  readonly weightKg: number
  readonly path: RoutePath
  readonly pickingDate: Day | undefined
  readonly usedPickingCapacity: number
  readonly readyDate: Day | undefined
  readonly legs: ReadonlyArray<LegPlan>
  readonly deliveries: ReadonlyArray<DeliveryOption>
  readonly cost: number
  readonly shortage: CapacityShortage | undefined
  /** The plan chosen, shared with every equal dispatch while usage is unchanged (PlanCache.ts); undefined when none was made. */
  readonly plan: PathPlan | undefined
}

export interface ItemResult {
  readonly item: EngineItem
  readonly dispatch: DispatchResult
  /** This item's share of the dispatch cost (by weight, else by units); shares add up to the cost. */
  readonly cost: number
  readonly stockShortage: StockShortage | undefined
}

export interface Evaluation {
  /** In request order. */
  readonly items: ReadonlyArray<ItemResult>
  readonly dispatches: ReadonlyArray<DispatchResult>
  /** False when no dispatch has any route: the 404 case. */
  readonly anyRouted: boolean
}

export interface PathPlan {
  readonly path: RoutePath
  readonly pickingDate: Day | undefined
  readonly usedPickingCapacity: number
  readonly readyDate: Day | undefined
  readonly legs: ReadonlyArray<LegPlan>
  readonly deliveries: ReadonlyArray<DeliveryOption>
  readonly shortage: CapacityShortage | undefined
  /** "OK", or why no delivery date could be planned. */
  readonly message: string
}
