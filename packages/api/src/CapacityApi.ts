import { Code, DispatchOrder, LocalDate, NetworkChangeBatch, NetworkDocument, OrderId, SchemaChecks } from "@retail/capacity"
import { DeliveryRequestA, DeliveryRequestB, DeliveryResponseA, DeliveryResponseB, ErrorBodyB } from "@retail/capacity-wire"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  CapacityBadRequestText,
  CapacityConflict,
  CapacityInternalText,
  CapacityNoRouteText,
  CapacityTimeoutText,
  CapacityTooLargeText,
  CapacityTooManyText,
  CapacityUnauthorizedText,
  CapacityUnsupportedMediaText,
  NodeNotFound,
  OrderConflict,
  OrderNotFound
} from "./CapacityErrors.ts"
import { InvalidRequest, PayloadTooLarge, RequestTimeout, StorageFailed } from "./Errors.ts"
import { JsonContentType } from "./JsonContentType.ts"
import { JsonValueLimit } from "./JsonValueLimit.ts"
import { CapacityApiKey, CapacityApiKeyScheme } from "./Security.ts"

/** Variant B's error body, per status (docs/capacity.md lists the codes). */
const errorB = (status: number, description: string) => ErrorBodyB.pipe(HttpApiSchema.status(status)).annotate({ description })

/** Checkout's hot path: the handler is raw (checks the key, decodes and encodes once itself); this is its documentation. */
export class DeliveryCapacityApi extends HttpApiGroup.make("deliveryCapacity")
  .add(
    HttpApiEndpoint.post("deliveryCapacity", "/delivery/capacity", {
      payload: Schema.Union([DeliveryRequestA, DeliveryRequestB]),
      success: Schema.Union([DeliveryResponseA, DeliveryResponseB]),
      error: [
        CapacityBadRequestText,
        errorB(400, "Variant B: INVALID_REQUEST or BUSINESS_RULE_VIOLATION, details.fields naming each field"),
        CapacityUnauthorizedText,
        errorB(401, "Variant B: UNAUTHORIZED (missing or unknown API key)"),
        CapacityNoRouteText,
        errorB(404, "Variant B: NO_ROUTE_FOUND"),
        CapacityTimeoutText,
        errorB(408, "Variant B: REQUEST_TIMEOUT (the body stalled or trickled; the connection is closed)"),
        CapacityTooLargeText,
        errorB(413, "Variant B: PAYLOAD_TOO_LARGE (over CAPACITY_MAX_BODY_BYTES)"),
        CapacityUnsupportedMediaText,
        errorB(415, "Variant B: UNSUPPORTED_MEDIA_TYPE"),
        CapacityTooManyText,
        errorB(429, "Variant B: TOO_MANY_REQUESTS (the API key's rate; Retry-After)"),
        CapacityInternalText,
        errorB(500, "Variant B: INTERNAL_ERROR")
      ]
    })
      .annotate(OpenApi.Summary, "Delivery dates for a group of items (variant A or B, told apart by shape)")
      // The handler is raw (the fast lane checks the key itself), so the group has no middleware to declare it.
      .annotate(OpenApi.Override, { security: [{ [CapacityApiKeyScheme]: [] }] })
      .annotate(
        OpenApi.Description,
        "Requires `Authorization: Bearer <api-key>` (CAPACITY_API_KEYS). Variant B when the body has saleChannel or " +
          "deliveryData, variant A when its items have origin or deliveryMode; neither: plain-string 400. Variant A errors " +
          "are plain strings (400 names every bad field, 404 no route, 500 internal); variant B errors are " +
          "{code, message, details}, 401 (missing or unknown key), 413, 415 (a Content-Type other than application/json or an application/*+json type, " +
          "charset=utf-8 allowed) and 429 included: every error is in the format of the variant the body reads as (a body that is not " +
          "JSON reads as variant B when it opens an object with a top-level saleChannel or deliveryData key, else as variant A)."
      )
  )
  .prefix("/v1")
  .annotate(OpenApi.Description, "Checkout's question: the delivery dates a group of items can be promised")
{}

export const NetworkVersion = Schema.Struct({ version: Schema.Int }).annotate({ identifier: "NetworkVersion" })

/** What an order for one dispatch takes is derived from these fields of the answer (see docs/capacity.md). */
export const ConsumptionRequest = DispatchOrder.annotate({
  identifier: "ConsumptionRequest",
  description: "An order for one dispatch of an answer: its orderId, dispatchCode, route, pickingDate, the legs " +
    "(`details`: route and departureDate) of the chosen deliveryTrace entry, its deliveryDate and deliveryWindow " +
    "(home delivery), and the units ordered"
})

export const ConsumptionResult = Schema.Struct({
  orderId: Schema.String,
  status: Schema.Literals(["APPLIED", "ALREADY_APPLIED", "RELEASED"])
}).annotate({ identifier: "ConsumptionResult" })

export const NetworkChangesRequest = NetworkChangeBatch.annotate({
  identifier: "NetworkChanges",
  description: "Changes to the parts of the network that change often (capacity overrides per node pool, route or zone " +
    "window and date; holidays; blocked zones and windows), under one sequence number (1 to 10,000 changes). A change " +
    "states one target on one date and stands over the network document (a PUT keeps it). It keeps the sequence that set it: " +
    "a batch again, or a batch older than a target's last for that date, leaves it alone. Of two changes of one target and " +
    "date in a batch, the later stands"
})

export const NetworkChangesResult = Schema.Struct({
  sequence: Schema.Int,
  received: Schema.Int.annotate({ description: "Changes in the body, duplicates included" }),
  rows: Schema.Int.annotate({ description: "Distinct targets and dates" }),
  applied: Schema.Int.annotate({ description: "Set (new, or holding an older sequence)" }),
  stale: Schema.Int.annotate({ description: "Left alone: their sequence was this batch's or newer" })
}).annotate({ identifier: "NetworkChangesResult" })

export const NetworkChangeRow = Schema.Struct({
  kind: Schema.String,
  target: Schema.String.annotate({ description: "The node code, route id or zone code" }),
  part: Schema.String.annotate({ description: "The node's pool (ALL, NORMAL, EXPRESS), the zone's window code, or \"\" for the whole target" }),
  date: Schema.String,
  value: Schema.NullOr(Schema.Int).annotate({ description: "The capacity of an override (null: the network's own); 1 or 0 for a holiday or a block set or lifted" }),
  sequence: Schema.Int
})

export const NetworkChangesView = Schema.Struct({
  changes: Schema.Array(NetworkChangeRow).annotate({ description: "Sorted by kind, target, part and date; from yesterday (UTC) on" })
}).annotate({ identifier: "NetworkChangesView" })

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
}).annotate({ identifier: "NodeLedgerView" })

export class CapacityAdminApi extends HttpApiGroup.make("capacityAdmin")
  .add(
    HttpApiEndpoint.get("getNetwork", "/network", { success: NetworkDocument })
      .annotate(OpenApi.Summary, "The current capacity network")
  )
  .add(
    HttpApiEndpoint.put("putNetwork", "/network", {
      payload: NetworkDocument,
      success: NetworkVersion,
      error: [InvalidRequest, PayloadTooLarge, RequestTimeout, StorageFailed]
    })
      // A JSON body's checks, only where a body is read (a GET or DELETE answers neither 413 nor 415).
      .middleware(JsonValueLimit).middleware(JsonContentType)
      .annotate(OpenApi.Summary, "Replace the capacity network (400 names the JSON path of every problem)")
  )
  .add(
    HttpApiEndpoint.post("applyNetworkChanges", "/network/changes", {
      payload: NetworkChangesRequest,
      success: NetworkChangesResult,
      error: [InvalidRequest, PayloadTooLarge, RequestTimeout, StorageFailed]
    })
      .middleware(JsonValueLimit).middleware(JsonContentType)
      .annotate(OpenApi.Summary, "Override capacity, set or lift holidays and blocked dates, in one batch under a sequence number (400 names every bad field)")
  )
  .add(
    HttpApiEndpoint.get("networkChanges", "/network/changes", { success: NetworkChangesView })
      .annotate(OpenApi.Summary, "The network changes this process answers with")
  )
  .add(
    HttpApiEndpoint.post("consume", "/delivery/capacity/consumptions", {
      payload: ConsumptionRequest,
      success: ConsumptionResult,
      // OrderConflict first: a client decoding a 409 tries it before the plain `{message}` of CapacityConflict.
      error: [InvalidRequest, OrderConflict, CapacityConflict, RequestTimeout, StorageFailed]
    })
      // A JSON body's checks, only where a body is read (a GET or DELETE answers neither 413 nor 415).
      .middleware(JsonValueLimit).middleware(JsonContentType)
      .annotate(OpenApi.Summary, "Take an order's capacity, all or nothing; idempotent by order id (the same content again) while the order is kept (CAPACITY_RETENTION_DAYS)")
  )
  .add(
    HttpApiEndpoint.delete("release", "/delivery/capacity/consumptions/:orderId", {
      // What an order takes as its id: anything else is a 400 naming the parameter (a U+0000 would fail the query).
      params: { orderId: OrderId },
      success: ConsumptionResult,
      error: [InvalidRequest, OrderNotFound, StorageFailed]
    }).annotate(OpenApi.Summary, "Give back an order's capacity")
  )
  .add(
    HttpApiEndpoint.get("nodeLedger", "/delivery/capacity/nodes/:code", {
      // What a network takes as a node's code (no length limit there).
      params: { code: Code.check(SchemaChecks.storable) },
      query: { from: LocalDate, to: LocalDate },
      success: NodeLedgerView,
      // 400: a code no node can have, or a from or to that is not a YYYY-MM-DD date (the contract's decoding answers it).
      error: [InvalidRequest, NodeNotFound, StorageFailed]
    }).annotate(OpenApi.Summary, "A node's picking and dispatch usage and the orders behind it")
  )
  // Middlewares added later run first: the key is checked before any byte of the body is read; then
  // the two endpoints with a JSON body check its media type, then count its values.
  .middleware(CapacityApiKey)
  .prefix("/v1")
  .annotate(OpenApi.Description, "The capacity network, and the capacity orders take and give back")
{}
