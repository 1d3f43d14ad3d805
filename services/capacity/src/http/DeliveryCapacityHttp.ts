import { Api, isJsonContentType } from "@retail/api"
import { holdsApiKey } from "@retail/auth"
import { Clock, Effect, Layer } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { CapacityConfig } from "../CapacityConfig.ts"
import { CapacityNetwork } from "../CapacityNetwork.ts"
import { NetworkReplica } from "../NetworkReplica.ts"
import { type Answer, INTERNAL } from "../Answer.ts"
import { answerRequest } from "../RequestAnswer.ts"

const respond = (answer: Answer) =>
  HttpServerResponse.text(answer.body, {
    status: answer.status,
    contentType: answer.contentType,
    ...(answer.retryAfter === undefined ? {} : { headers: { "retry-after": String(answer.retryAfter) } })
  })

/**
 * POST /v1/delivery/capacity through the HttpApi: the same answer as the node-level fast lane
 * (FastLane.ts), which takes these requests first when the server runs on node:http (it also
 * applies the API key's rate). Raw: no payload decoding by the framework, no middleware, no span,
 * no log. Errors are answered in the format of the variant the body reads as.
 */
export const DeliveryCapacityHttp = HttpApiBuilder.group(Api, "deliveryCapacity", (handlers) =>
  Effect.gen(function*() {
    const config = yield* CapacityConfig
    const network = yield* CapacityNetwork
    return handlers.handleRaw("deliveryCapacity", ({ request }) =>
      Effect.gen(function*() {
        const authorized = holdsApiKey(config.apiKeys, request.headers["authorization"])
        const json = authorized && isJsonContentType(request.headers["content-type"])
        const body = yield* request.text
        const checks = { authorized, json, retryAfter: undefined }
        const tooLarge = Buffer.byteLength(body) > config.maxBodyBytes
        return respond(answerRequest(config, network.peek(), checks, body, tooLarge, yield* Clock.currentTimeMillis))
      }).pipe(Effect.catchCause(() => Effect.succeed(respond(INTERNAL.A)))))
  })).pipe(Layer.provide(NetworkReplica))
