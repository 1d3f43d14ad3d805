import { Api, BodyTimeoutAnswer } from "@retail/api"
import { type Answer, formatOf, INTERNAL } from "@retail/capacity-wire"
import { Effect, Layer, Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import type { CapacityRequest } from "../answer/AnswerCapacityRequest.ts"
import { DeliveryCapacityAnswers } from "../answer/DeliveryCapacityAnswers.ts"
import { RequestBody } from "../answer/RequestBody.ts"

const respond = (answer: Answer) =>
  HttpServerResponse.uint8Array(answer.body, {
    status: answer.status,
    contentType: answer.contentType,
    ...(answer.retryAfter === undefined ? {} : { headers: { "retry-after": String(answer.retryAfter) } })
  })

/**
 * POST /v1/delivery/capacity through the HttpApi, where the fast lane (FastLane.ts) does not take it
 * first (another HttpServer than node:http): an adapter over the same answer (DeliveryCapacityAnswers).
 * Raw: no payload decoding by the framework, no middleware. The body is read to its end, its first
 * CAPACITY_MAX_BODY_BYTES kept (the server's REQUEST_MAX_BYTES does not apply to it); the server's
 * body watchdog ends a body that stalls, with this route's 408 (BodyTimeoutAnswer).
 */
export const DeliveryCapacityHttp = HttpApiBuilder.group(Api, "deliveryCapacity", (handlers) =>
  Effect.gen(function*() {
    const answers = yield* DeliveryCapacityAnswers
    return handlers.handleRaw("deliveryCapacity", ({ request }) =>
      Effect.gen(function*() {
        const body = new RequestBody(answers.settings.maxBodyBytes)
        const answer = (ended: CapacityRequest["ended"]) =>
          respond(answers.answer({
            authorization: request.headers["authorization"],
            contentType: request.headers["content-type"],
            body: body.text(),
            ended
          }))
        const timeoutSlot = yield* BodyTimeoutAnswer
        timeoutSlot?.set(() => answer("stalled"))
        return yield* Stream.runForEach(request.stream, (chunk) => Effect.sync(() => body.add(chunk))).pipe(
          Effect.map(() => answer(body.tooLarge ? "tooLarge" : "whole")),
          // The body could not be read (the client went away): nobody reads this answer.
          Effect.catchCause(() => Effect.succeed(respond(INTERNAL[formatOf(body.text())])))
        )
      }))
  })).pipe(Layer.provide(DeliveryCapacityAnswers.live))
