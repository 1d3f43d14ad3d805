import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { DeliveryRequestA, DeliveryResponseA, LocalDate, NetworkDocument } from "@retail/capacity"
import { Schema } from "effect"
import {
  CapacityBadRequestText,
  CapacityConflict,
  CapacityInternalText,
  CapacityNoRouteText,
  CapacityUnauthorizedText,
  NodeNotFound,
  OrderNotFound
} from "./CapacityErrors.ts"
import { InvalidRequest, PayloadTooLarge, StorageFailed } from "./Errors.ts"
import { CapacityApiKey } from "./Security.ts"

/** Checkout's hot path: the handler is raw (checks the key, decodes and encodes once itself); this is its documentation. */
export class DeliveryCapacityApi extends HttpApiGroup.make("deliveryCapacity")
  .add(
    HttpApiEndpoint.post("deliveryCapacity", "/delivery/capacity")
      .setPayload(DeliveryRequestA)
      .addSuccess(DeliveryResponseA)
      .addError(CapacityBadRequestText, { status: 400 })
      .addError(CapacityUnauthorizedText, { status: 401 })
      .addError(CapacityNoRouteText, { status: 404 })
      .addError(CapacityInternalText, { status: 500 })
      .annotate(OpenApi.Summary, "Delivery dates for a group of items (variant A)")
      .annotate(
        OpenApi.Description,
        "Requires `Authorization: Bearer <api-key>` (CAPACITY_API_KEYS). Errors are plain strings: 400 names every bad field, " +
          "401 missing or unknown key, 404 no route for any dispatch, 500 internal failure."
      )
  )
  .prefix("/v1")
{}

export const NetworkVersion = Schema.Struct({ version: Schema.Int }).annotations({ identifier: "NetworkVersion" })

const CapacityPool = Schema.Literal("ALL", "NORMAL", "EXPRESS")

export const CapacityResourceSchema = Schema.Union(
  Schema.TaggedStruct("Picking", { node: Schema.String, pool: CapacityPool }),
  Schema.TaggedStruct("NodeDispatch", { node: Schema.String, pool: CapacityPool }),
  Schema.TaggedStruct("RouteDeparture", { route: Schema.String }),
  Schema.TaggedStruct("ZoneWindow", { zone: Schema.String, window: Schema.String })
).annotations({ identifier: "CapacityResource" })

export const CapacityUseSchema = Schema.Struct({
  resource: CapacityResourceSchema,
  date: LocalDate,
  amount: Schema.Int.pipe(Schema.positive({ message: () => "must be an integer greater than 0" }))
}).annotations({ identifier: "CapacityUse" })

export const ConsumptionRequest = Schema.Struct({
  orderId: Schema.String.pipe(Schema.minLength(1, { message: () => "must not be empty" })),
  uses: Schema.Array(CapacityUseSchema).annotations({
    description: "What the order takes: the origin's picking on the picking date, each leg's departure and source dispatch pool, one delivery in the chosen zone window"
  })
}).annotations({ identifier: "ConsumptionRequest" })

export const ConsumptionResult = Schema.Struct({
  orderId: Schema.String,
  status: Schema.Literal("APPLIED", "ALREADY_APPLIED", "RELEASED")
}).annotations({ identifier: "ConsumptionResult" })

export const NodeUsage = Schema.Struct({ kind: Schema.String, pool: Schema.String, date: Schema.String, used: Schema.Number })
export const NodeOrderUse = Schema.Struct({ orderId: Schema.String, kind: Schema.String, pool: Schema.String, date: Schema.String, units: Schema.Number })
export const NodeLedgerView = Schema.Struct({
  node: Schema.String,
  from: Schema.String,
  to: Schema.String,
  pickingCapacity: Schema.Unknown,
  dispatchCapacity: Schema.Unknown,
  usage: Schema.Array(NodeUsage),
  orders: Schema.Array(NodeOrderUse)
}).annotations({ identifier: "NodeLedgerView" })

export class CapacityAdminApi extends HttpApiGroup.make("capacityAdmin")
  .add(
    HttpApiEndpoint.get("getNetwork", "/network")
      .addSuccess(NetworkDocument)
      .annotate(OpenApi.Summary, "The current capacity network")
  )
  .add(
    HttpApiEndpoint.put("putNetwork", "/network")
      .setPayload(NetworkDocument)
      .addSuccess(NetworkVersion)
      .addError(InvalidRequest)
      .addError(PayloadTooLarge)
      .addError(StorageFailed)
      .annotate(OpenApi.Summary, "Replace the capacity network (400 names the JSON path of every problem)")
  )
  .add(
    HttpApiEndpoint.post("consume", "/delivery/capacity/consumptions")
      .setPayload(ConsumptionRequest)
      .addSuccess(ConsumptionResult)
      .addError(InvalidRequest)
      .addError(CapacityConflict)
      .addError(StorageFailed)
      .annotate(OpenApi.Summary, "Take an order's capacity, all or nothing; idempotent by order id")
  )
  .add(
    HttpApiEndpoint.del("release", "/delivery/capacity/consumptions/:orderId")
      .setPath(Schema.Struct({ orderId: Schema.String }))
      .addSuccess(ConsumptionResult)
      .addError(OrderNotFound)
      .addError(StorageFailed)
      .annotate(OpenApi.Summary, "Give back an order's capacity")
  )
  .add(
    HttpApiEndpoint.get("nodeLedger", "/delivery/capacity/nodes/:code")
      .setPath(Schema.Struct({ code: Schema.String }))
      .setUrlParams(Schema.Struct({ from: LocalDate, to: LocalDate }))
      .addSuccess(NodeLedgerView)
      .addError(NodeNotFound)
      .addError(StorageFailed)
      .annotate(OpenApi.Summary, "A node's picking and dispatch usage and the orders behind it")
  )
  .middleware(CapacityApiKey)
  .prefix("/v1")
{}
