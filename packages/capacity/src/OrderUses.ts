import { Data, Result, Schema } from "effect"
import { Int, MAX_CODE_LENGTH, maxLength, minLength, positive, storable } from "./Checks.ts"
import type { FieldIssue } from "./DecodeError.ts"
import type { CapacityUse } from "./Ledger.ts"
import { type DeliveryMode, type DispatchType, LocalDate } from "./Network.ts"
import type { NodeModel, RouteModel, Snapshot } from "./SnapshotModel.ts"

/** Every text of an order is stored with it (jsonb): text PostgreSQL would refuse or alter is refused here. */
const Text = Schema.String.check(storable)
const NonEmpty = Schema.String.check(minLength(1, "must not be empty"), storable)
/** The order's key in PostgreSQL and in DELETE /v1/delivery/capacity/consumptions/{orderId}. */
export const OrderId = NonEmpty.check(maxLength(MAX_CODE_LENGTH, `must be at most ${MAX_CODE_LENGTH} characters`))

/** One leg as the trace returned it (`deliveryTrace[].details[]`); other fields of the detail are ignored. */
export const OrderLeg = Schema.Struct({ route: NonEmpty, departureDate: LocalDate })

/**
 * An order placed for one dispatch of an answer, in the answer's own terms: its `dispatchCode`,
 * `route`, `pickingDate`, the legs of the chosen `deliveryTrace` entry, the chosen delivery date and
 * window, and the units ordered.
 */
export const DispatchOrder = Schema.Struct({
  orderId: OrderId,
  dispatchCode: NonEmpty,
  /** As the answer gave it: null (or "") for a pickup at the origin store, which has no legs. */
  route: Schema.NullOr(Text),
  pickingDate: LocalDate,
  details: Schema.Array(OrderLeg),
  deliveryDate: LocalDate,
  deliveryWindow: Schema.optional(Text),
  units: Int.check(positive("must be an integer greater than 0"))
}).annotate({ identifier: "DispatchOrder" })
export type DispatchOrder = typeof DispatchOrder.Type

/** The order does not match the current network (unknown route, a window the zone lacks...): 400. */
export class OrderInvalid extends Data.TaggedError("OrderInvalid")<{ readonly issues: ReadonlyArray<FieldIssue> }> {}

const TYPES: Readonly<Record<string, DispatchType>> = { N: "NORMAL", E: "EXPRESS" }
const MODES: Readonly<Record<string, DeliveryMode>> = { H: "HOME_DELIVERY", S: "STORE_WITHDRAWAL" }

/** `<origin>-<destination>-<N|E><H|S>`: the origin is known from the first leg (or is the destination, without legs). */
const splitCode = (code: string, origin: string | undefined) => {
  const suffix = /-([NE])([HS])$/.exec(code)
  const dispatchType = suffix?.[1] === undefined ? undefined : TYPES[suffix[1]]
  const mode = suffix?.[2] === undefined ? undefined : MODES[suffix[2]]
  if (dispatchType === undefined || mode === undefined) return undefined
  const body = code.slice(0, -3)
  const from = origin ?? body.slice(0, (body.length - 1) / 2)
  if (!body.startsWith(`${from}-`)) return undefined
  const destination = body.slice(from.length + 1)
  if (origin === undefined && destination !== from) return undefined
  return { origin: from, destination, dispatchType, mode }
}

/**
 * What the order takes, as `usesOfDispatch` would list it for the planned dispatch: the origin's
 * picking on the picking date, each leg's departure and its source's dispatch pool on the
 * departure date, and one delivery in the chosen window (home delivery).
 */
export const usesOfOrder = (snapshot: Snapshot, order: DispatchOrder): Result.Result<ReadonlyArray<CapacityUse>, OrderInvalid> => {
  const invalid = (path: string, message: string) => Result.fail(new OrderInvalid({ issues: [{ path, message }] }))
  const routeIds = order.route === null || order.route === "" ? [] : order.route.split(">")
  if (routeIds.length !== order.details.length) {
    return invalid("details", `expected one entry per leg of route "${order.route ?? ""}" (${routeIds.length}), got ${order.details.length}`)
  }
  const legs: Array<RouteModel> = []
  for (let index = 0; index < routeIds.length; index++) {
    const id = routeIds[index] ?? ""
    const route = snapshot.routes.get(id)
    if (route === undefined) return invalid("route", `no route ${id} in the current network`)
    if (order.details[index]?.route !== id) return invalid(`details[${index}].route`, `expected ${id}, the ${index + 1}. leg of route`)
    const previous = legs[index - 1]
    if (previous !== undefined && previous.targetNode?.code !== route.source.code) {
      return invalid("route", `${previous.id} does not lead to ${route.source.code}, where ${id} starts`)
    }
    legs.push(route)
  }
  const parts = splitCode(order.dispatchCode, legs[0]?.source.code)
  if (parts === undefined) {
    return invalid("dispatchCode", `expected <origin>-<destination>-<N|E><H|S> matching the route's origin`)
  }
  const origin: NodeModel | undefined = snapshot.nodes.get(parts.origin)
  if (origin === undefined) return invalid("dispatchCode", `no node ${parts.origin} in the current network`)
  for (const [index, route] of legs.entries()) {
    if (!route.dispatchTypes.has(parts.dispatchType) || !route.deliveryModes.has(parts.mode)) {
      return invalid(`details[${index}].route`, `${route.id} does not serve ${parts.dispatchType} ${parts.mode}`)
    }
  }
  const last = legs[legs.length - 1]
  const uses: Array<CapacityUse> = [{
    resource: { _tag: "Picking", node: origin.code, pool: origin.picking[parts.dispatchType].pool },
    date: order.pickingDate,
    amount: order.units
  }]
  for (const [index, route] of legs.entries()) {
    const date = order.details[index]?.departureDate ?? ""
    uses.push({ resource: { _tag: "RouteDeparture", route: route.id }, date, amount: order.units })
    uses.push({
      resource: { _tag: "NodeDispatch", node: route.source.code, pool: route.source.dispatch[parts.dispatchType].pool },
      date,
      amount: order.units
    })
  }
  if (parts.mode === "STORE_WITHDRAWAL") {
    const end = last === undefined ? origin.code : last.targetNode?.code
    if (end !== parts.destination) return invalid("dispatchCode", `route "${order.route}" does not end at store ${parts.destination}`)
    return Result.succeed(uses)
  }
  const zone = snapshot.zones.get(parts.destination)
  if (zone === undefined || last === undefined || !last.targetZones.has(zone.code)) {
    return invalid("dispatchCode", `route "${order.route}" does not deliver to zone ${parts.destination}`)
  }
  if (order.deliveryWindow === undefined) return invalid("deliveryWindow", "is required for home delivery")
  if (!zone.windows.some((window) => window.code === order.deliveryWindow)) {
    return invalid("deliveryWindow", `zone ${zone.code} has no window ${order.deliveryWindow}`)
  }
  uses.push({ resource: { _tag: "ZoneWindow", zone: zone.code, window: order.deliveryWindow }, date: order.deliveryDate, amount: 1 })
  return Result.succeed(uses)
}
