// Candidate 4 of issue 19 step 1: POST /v1/delivery/capacity as an Effect 4 `HttpApi` endpoint whose
// payload the framework decodes with the contract's schema (DeliveryRequestSchema.ts: the union of
// variant A and variant B), then answered by the fast lane's answer function after its JSON.parse
// (`answerParsed`: the variant's own decode, the engine, the encoding), so a body is decoded twice,
// once by Effect 4's Schema and once by the engine's compiled decoder. The handler returns the
// encoded answer as an HttpServerResponse (the encoder of today's endpoint, not the success schema).
// The API key and media type are checked in the handler, after the payload is decoded.
import { Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Layer } from "effect"
import { type Answer, demoCapacityAnswerHost } from "../../src/support/CapacityAnswerHost.ts"
import { DeliveryRequest } from "./DeliveryRequestSchema.ts"
import { listen } from "./Listen.ts"

const host = demoCapacityAnswerHost((process.env["CAPACITY_API_KEYS"] ?? "").split(",").filter((k) => k !== ""))

const respond = (answer: Answer) => HttpServerResponse.text(answer.body, { status: answer.status, contentType: answer.contentType })

class DeliveryCapacityApi extends HttpApiGroup.make("deliveryCapacity")
  .add(HttpApiEndpoint.post("deliveryCapacity", "/delivery/capacity", { payload: DeliveryRequest }))
  .prefix("/v1")
{}

const Api = HttpApi.make("capacity").add(DeliveryCapacityApi)

const DeliveryCapacityLive = HttpApiBuilder.group(Api, "deliveryCapacity", (handlers) =>
  handlers.handle("deliveryCapacity", ({ payload, request }) => {
    if (!host.authorized(request.headers["authorization"])) return Effect.succeed(respond(host.UNAUTHORIZED))
    if (!host.jsonContentType(request.headers["content-type"])) return Effect.succeed(respond(host.UNSUPPORTED_MEDIA_TYPE))
    return Effect.sync(() => respond(host.answerParsed(payload, Date.now())))
  }))

listen(HttpRouter.serve(HttpApiBuilder.layer(Api).pipe(Layer.provide(DeliveryCapacityLive)), { disableLogger: true, disableListenLog: true }))
