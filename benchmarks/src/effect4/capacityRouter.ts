// Candidate 3 of issue 19 step 1: POST /v1/delivery/capacity as one Effect 4 `HttpRouter` route.
// The same checks and answer function as the fast lane (services/capacity/src/http/FastLane.ts):
// the API key, the media type, the body as text, `answerCapacity` (JSON.parse, the variant's decode,
// the engine, the encoding). No logger, no tracer, no middleware.
import { Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { type Answer, demoCapacityAnswerHost } from "../../src/support/CapacityAnswerHost.ts"
import { listen } from "./Listen.ts"

const host = demoCapacityAnswerHost((process.env["CAPACITY_API_KEYS"] ?? "").split(",").filter((k) => k !== ""))

const respond = (answer: Answer) => HttpServerResponse.text(answer.body, { status: answer.status, contentType: answer.contentType })

const CapacityRoute = HttpRouter.add("POST", "/v1/delivery/capacity", (request) => {
  if (!host.authorized(request.headers["authorization"])) return Effect.succeed(respond(host.UNAUTHORIZED))
  if (!host.jsonContentType(request.headers["content-type"])) return Effect.succeed(respond(host.UNSUPPORTED_MEDIA_TYPE))
  return request.text.pipe(
    Effect.map((body) => respond(host.answer(body, Date.now()))),
    Effect.catchCause(() => Effect.succeed(respond(host.INTERNAL)))
  )
})

listen(HttpRouter.serve(CapacityRoute, { disableLogger: true, disableListenLog: true }))
