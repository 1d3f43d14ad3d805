import { Schema } from "effect"
import { HttpApiSchema } from "effect/http-api"
import { MessageError, withTag } from "./MessageError.ts"

/**
 * Variant A errors are plain strings (spec: "plain string body"), sent as `text/plain; charset=utf-8`, as are the
 * answers given before the body is read (401, 413, 415, 429); declared here for the OpenAPI document only.
 */
const plain = (status: number, description: string) =>
  Schema.String.pipe(HttpApiSchema.asText(), HttpApiSchema.status(status)).annotate({ description })

export const CapacityBadRequestText = plain(400, "Bad request: every bad field with its path and the problem")
export const CapacityUnauthorizedText = plain(401, "Missing or unknown API key")
export const CapacityUnsupportedMediaText = plain(415, "The body is not sent as Content-Type: application/json")
export const CapacityNoRouteText = plain(404, "No route found for any dispatch of the request")
export const CapacityInternalText = plain(500, "Error computing the delivery date")
export const CapacityTimeoutText = plain(408, "The body stopped arriving, or arrived slower than UPLOAD_MIN_BYTES_PER_SECOND, over UPLOAD_IDLE_TIMEOUT_MS; the connection is closed")
export const CapacityTooLargeText = plain(413, "The body is larger than CAPACITY_MAX_BODY_BYTES")
export const CapacityTooManyText = plain(429, "Over this API key's request rate (docs/limits.md); the Retry-After header says when to try again")

export class CapacityConflict extends MessageError<CapacityConflict>()(
  "CapacityConflict",
  409,
  "Capacity ran out since the dates were offered; nothing was taken"
) {}

/** The body is CapacityConflict's `{message}` plus the order id and the fields that differ (docs/capacity.md); no `_tag` on the wire. */
export class OrderConflict extends withTag(
  "OrderConflict",
  Schema.Error<OrderConflict, { readonly _tag: "OrderConflict" }>("OrderConflict")(
    Schema.Struct({ message: Schema.String, orderId: Schema.String, fields: Schema.Array(Schema.String) }).annotate({
      identifier: "OrderConflict"
    }),
    {
      httpApiStatus: 409,
      description: "The orderId was applied already with other content (`fields` names what differs); the applied order stands and nothing was taken"
    }
  )
) {}

export class OrderNotFound extends MessageError<OrderNotFound>()("OrderNotFound", 404, "No capacity is held for this order id") {}

export class NodeNotFound extends MessageError<NodeNotFound>()("NodeNotFound", 404, "The current network has no node with this code") {}
