import {
  CapacityConflict,
  ConsumptionRequest,
  ConsumptionResult,
  decodeErrorBody,
  InvalidRequest,
  NOT_JSON_BODY,
  OrderConflict,
  PayloadTooLarge,
  requestTimeoutMessage,
  StorageFailed
} from "@retail/api"
import type { DispatchOrder } from "@retail/capacity"
import { Effect, Result, Schema } from "effect"
import { tooManyValues } from "./JsonValueCount.ts"

/** An answer of the consumptions endpoint: always `application/json`. */
export interface OrderAnswer {
  readonly status: number
  readonly body: string
}

/** A consumption's body as an adapter hands it over: its text once it ended, or how it stalled (the body watchdog's verdict). */
export interface OrderRequest {
  readonly body: string
  readonly ended: "whole" | "idle" | "tooSlow"
}

/** What takeOrder (TakeOrder.ts) refuses an order with, and the 413 of a body with too many values. */
export type OrderRefusal = InvalidRequest | OrderConflict | CapacityConflict | StorageFailed | PayloadTooLarge

export interface OrderEndpoint {
  readonly requestMaxValues: number
  readonly bodyIdleTimeoutMs: number
  readonly bodyMinBytesPerSecond: number
  readonly take: (order: DispatchOrder) => Effect.Effect<typeof ConsumptionResult.Type, OrderRefusal>
}

const decodeOrder = Schema.decodeUnknownResult(ConsumptionRequest)
/** The framework decodes a payload against the union of the endpoint's payload schemas: its issues, so its words, are the union's. */
const decodeAsPayload = Schema.decodeUnknownResult(Schema.Union([ConsumptionRequest]))

const encodeResult = Schema.encodeSync(ConsumptionResult)
const encodeInvalid = Schema.encodeSync(InvalidRequest)
const encodeTooLarge = Schema.encodeSync(PayloadTooLarge)
const encodeOrderConflict = Schema.encodeSync(OrderConflict)
const encodeCapacityConflict = Schema.encodeSync(CapacityConflict)
const encodeStorageFailed = Schema.encodeSync(StorageFailed)

const json = (status: number, value: unknown): OrderAnswer => ({ status, body: JSON.stringify(value) })

/** Each refusal with the status and body the contract gives it (CapacityApi.ts). */
export const refusalAnswer = (error: OrderRefusal): OrderAnswer => {
  switch (error._tag) {
    case "InvalidRequest":
      return json(400, encodeInvalid(error))
    case "PayloadTooLarge":
      return json(413, encodeTooLarge(error))
    case "OrderConflict":
      return json(409, encodeOrderConflict(error))
    case "CapacityConflict":
      return json(409, encodeCapacityConflict(error))
    case "StorageFailed":
      return json(500, encodeStorageFailed(error))
  }
}

/**
 * POST /v1/delivery/capacity/consumptions once its body is read, as the HttpApi route answers it
 * after its headers passed (the API key, its rate, the media type, REQUEST_MAX_BYTES): 408 for a
 * body that stalled (the server watchdog's words), 413 past REQUEST_MAX_VALUES, 400 for a body that
 * is not JSON or not an order (the contract's decode-error words), then the order taken by
 * `endpoint.take` (takeOrder: the same function the HttpApi handler runs). No I/O of its own.
 */
export const answerOrder = (endpoint: OrderEndpoint, request: OrderRequest): Effect.Effect<OrderAnswer> => {
  if (request.ended !== "whole") {
    return Effect.succeed(json(408, { message: requestTimeoutMessage(request.ended, endpoint.bodyIdleTimeoutMs, endpoint.bodyMinBytesPerSecond) }))
  }
  const tooMany = tooManyValues(request.body, endpoint.requestMaxValues)
  if (tooMany !== undefined) return Effect.succeed(refusalAnswer(tooMany))
  let input: unknown
  try {
    input = JSON.parse(request.body)
  } catch {
    return Effect.succeed(json(400, NOT_JSON_BODY))
  }
  const order = decodeOrder(input)
  if (Result.isFailure(order)) {
    const issue = Result.match(decodeAsPayload(input), { onFailure: (error) => error.issue, onSuccess: () => order.failure.issue })
    return Effect.succeed(json(400, decodeErrorBody(issue, input)))
  }
  return Effect.match(endpoint.take(order.success), {
    onSuccess: (result) => json(200, encodeResult(result)),
    onFailure: refusalAnswer
  })
}
