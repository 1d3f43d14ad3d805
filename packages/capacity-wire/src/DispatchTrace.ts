import { type DeliveryOption, type DispatchResult, formatDay, type ShortageKind, type WindowModel } from "@retail/capacity"
import { mapForJson } from "./JsonArrays.ts"
import { markJsonLasting } from "./JsonTextReuse.ts"
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

/** Windows a zone may have for their open/blocked pattern to be one bit each of a number. */
const MASKED_WINDOWS = 30
/** Patterns kept per zone: a zone of many windows could show many; past this, lists are made per option. */
export const WINDOW_LISTS_PER_ZONE = 64

/** A list shown, with the window models it was made from, in order. */
interface Shown {
  readonly models: ReadonlyArray<WindowModel>
  readonly list: ReadonlyArray<DeliveryWindowA>
}

/**
 * The lists shown, by the zone's first window model (an option's slots are its zone's windows, in
 * order) and the pattern of blocked ones: a few per zone, built once per network and shared by every
 * option, plan and answer showing them. A list is given only for the same models in the same order.
 */
const shownByZone = new WeakMap<WindowModel, Map<number, Shown>>()

const sameModels = (models: ReadonlyArray<WindowModel>, option: DeliveryOption): boolean => {
  if (models.length !== option.windows.length) return false
  for (let i = 0; i < models.length; i++) if (models[i] !== option.windows[i]?.window) return false
  return true
}

const shownOf = (option: DeliveryOption): ReadonlyArray<DeliveryWindowA> =>
  mapForJson(option.windows, (slot) => ({
    deliveryWindow: slot.window.code,
    deliveryWindowStart: slot.window.start,
    deliveryWindowEnd: slot.window.end,
    blocked: slot.blocked
  }))

/**
 * Windows of one delivery option as the trace shows them (both variants). The same windows open
 * and blocked alike are one list, marked lasting: its text is written once, not once per option of
 * every plan made again after an order (the windows are most of a trace's text).
 */
export const deliveryWindowsOf = (option: DeliveryOption): ReadonlyArray<DeliveryWindowA> => {
  const slots = option.windows
  const first = slots[0]
  if (first === undefined || slots.length > MASKED_WINDOWS) return shownOf(option)
  let mask = 0
  for (let i = 0; i < slots.length; i++) if (slots[i]?.blocked === true) mask |= 1 << i
  let byMask = shownByZone.get(first.window)
  if (byMask === undefined) shownByZone.set(first.window, byMask = new Map())
  const kept = byMask.get(mask)
  if (kept !== undefined) return sameModels(kept.models, option) ? kept.list : shownOf(option)
  if (byMask.size >= WINDOW_LISTS_PER_ZONE) return shownOf(option)
  const list = shownOf(option)
  markJsonLasting(list)
  for (const window of list) markJsonLasting(window)
  byMask.set(mask, { models: slots.map((slot) => slot.window), list })
  return list
}
