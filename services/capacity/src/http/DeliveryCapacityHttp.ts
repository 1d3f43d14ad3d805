import { Api, isJsonContentType } from "@retail/api"
import { holdsApiKey } from "@retail/auth"
import { Clock, Effect, Layer } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { CapacityConfig } from "../CapacityConfig.ts"
import { CapacityNetwork } from "../CapacityNetwork.ts"
import { NetworkReplica } from "../NetworkReplica.ts"
import { answerCapacity } from "../CapacityAnswer.ts"
import {
  type Answer,
  INTERNAL,
  UNAUTHORIZED,
  UNSUPPORTED_MEDIA_TYPE
} from "../Answer.ts"

const respond = (answer: Answer) =>
  HttpServerResponse.text(answer.body, { status: answer.status, contentType: answer.contentType })

/**
 * POST /v1/delivery/capacity through the HttpApi: the same answer as the node-level fast lane
 * (FastLane.ts), which takes these requests first when the server runs on node:http. Raw: no
 * payload decoding by the framework, no middleware, no span, no log.
 */
export const DeliveryCapacityHttp = HttpApiBuilder.group(Api, "deliveryCapacity", (handlers) =>
  Effect.gen(function*() {
    const config = yield* CapacityConfig
    const network = yield* CapacityNetwork
    return handlers.handleRaw("deliveryCapacity", ({ request }) => {
      if (!holdsApiKey(config.apiKeys, request.headers["authorization"])) return Effect.succeed(respond(UNAUTHORIZED))
      if (!isJsonContentType(request.headers["content-type"])) return Effect.succeed(respond(UNSUPPORTED_MEDIA_TYPE))
      return Effect.gen(function*() {
        const body = yield* request.text
        return respond(answerCapacity(config, network.peek(), body, yield* Clock.currentTimeMillis))
      }).pipe(Effect.catchCause(() => Effect.succeed(respond(INTERNAL))))
    })
  })).pipe(Layer.provide(NetworkReplica))
