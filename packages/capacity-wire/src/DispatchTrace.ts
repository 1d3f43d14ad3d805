import { type DeliveryOption, type DispatchResult, formatDay, type ShortageKind } from "@retail/capacity"
import { mapForJson } from "./JsonArrays.ts"
import type { DeliveryWindowA, TraceDetail } from "./VariantA.ts"

// What both variants show of a planned dispatch: its legs, its delivery windows, the code of a shortage.

/** detailedCapacityError[].details[].errorCode of a capacity shortage, in both variants. */
export const CAPACITY_ERROR_CODE: Readonly<Record<ShortageKind, string>> = {
  PICKING_CAPACITY: "PICKING_CAPACITY_EXCEEDED",
  NODE_DISPATCH_CAPACITY: "DISPATCH_CAPACITY_EXCEEDED",
  ROUTE_CAPACITY: "ROUTE_CAPACITY_EXCEEDED",
  ZONE_WINDOW_CAPACITY: "DELIVERY_WINDOW_CAPACITY_EXCEEDED"
}

/** One TraceDetail per leg of a planned dispatch (both variants). */
export const traceDetailsOf = (dispatch: DispatchResult): ReadonlyArray<TraceDetail> =>
  mapForJson(dispatch.legs, (leg, index) => ({
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

/** Windows of one delivery option as the trace shows them (both variants). */
export const deliveryWindowsOf = (option: DeliveryOption): ReadonlyArray<DeliveryWindowA> =>
  mapForJson(option.windows, (slot) => ({
    deliveryWindow: slot.window.code,
    deliveryWindowStart: slot.window.start,
    deliveryWindowEnd: slot.window.end,
    blocked: slot.blocked
  }))
