// The `effect4` benchmark's HttpApi candidate: POST /v1/delivery/capacity as the contract declares it
// (packages/api/src/CapacityApi.ts, `DeliveryCapacityApi`: payload `Union(DeliveryRequestA,
// DeliveryRequestB)`), handled with `handle`, so the framework decodes the payload with the contract's
// schema. The handler then answers with the server's answer function after its JSON.parse
// (`answerInput`: the variant's own decode, the engine, the encoding), so a body is decoded
// twice, once by the contract's Schema and once by the engine's compiled decoder. It returns the encoded
// answer as an HttpServerResponse (the fast lane's encoder, not the success schema). The API key and
// media type are checked in the handler, after the payload is decoded. The server's own HttpApi handler
// (services/capacity/src/http/DeliveryCapacityHttp.ts) is raw instead: no framework decode.
import { DeliveryCapacityApi, isJsonContentType } from "@retail/api"
import { holdsApiKey } from "@retail/auth"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { HttpApi, HttpApiBuilder } from "effect/http-api"
import { type Answer, UNAUTHORIZED, UNSUPPORTED_MEDIA_TYPE } from "@retail/capacity-wire"
import { answerInput } from "../../../services/capacity/src/answer/AnswerCapacityRequest.ts"
import { demoCapacity } from "./DemoCapacity.ts"
import { listen } from "./Listen.ts"

const { settings, snapshot } = demoCapacity()

const respond = (answer: Answer) => HttpServerResponse.uint8Array(answer.body, { status: answer.status, contentType: answer.contentType })

const Api = HttpApi.make("capacity").add(DeliveryCapacityApi)

const DeliveryCapacityLive = HttpApiBuilder.group(Api, "deliveryCapacity", (handlers) =>
  handlers.handle("deliveryCapacity", ({ payload, request }) => {
    if (!holdsApiKey(settings.apiKeys, request.headers["authorization"])) return Effect.succeed(respond(UNAUTHORIZED.A))
    if (!isJsonContentType(request.headers["content-type"])) return Effect.succeed(respond(UNSUPPORTED_MEDIA_TYPE.A))
    return Effect.sync(() => respond(answerInput(settings, snapshot, payload, Date.now())))
  }))

listen(HttpRouter.serve(HttpApiBuilder.layer(Api).pipe(Layer.provide(DeliveryCapacityLive)), { disableLogger: true, disableListenLog: true }))
