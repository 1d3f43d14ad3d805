// The `effect4` benchmark's HttpRouter candidate: POST /v1/delivery/capacity as one Effect 4
// `HttpRouter` route (`effect/http`), with the same checks and answer function as the server's fast
// lane (services/capacity/src/http/FastLane.ts): the API key, the media type, the body as text,
// `answerBody` (JSON.parse, the variant's decode, the engine, the encoding). No logger, no
// tracer, no middleware. Bundled and run by benchmarks/src/suite/Effect4.ts.
import { isJsonContentType } from "@retail/api"
import { holdsApiKey } from "@retail/auth"
import { Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { type Answer, INTERNAL, UNAUTHORIZED, UNSUPPORTED_MEDIA_TYPE } from "@retail/capacity-wire"
import { answerBody } from "../../../services/capacity/src/answer/AnswerCapacityRequest.ts"
import { demoCapacity } from "./DemoCapacity.ts"
import { listen } from "./Listen.ts"

const { settings, snapshot } = demoCapacity()

const respond = (answer: Answer) => HttpServerResponse.uint8Array(answer.body, { status: answer.status, contentType: answer.contentType })

const CapacityRoute = HttpRouter.add("POST", "/v1/delivery/capacity", (request) => {
  if (!holdsApiKey(settings.apiKeys, request.headers["authorization"])) return Effect.succeed(respond(UNAUTHORIZED.A))
  if (!isJsonContentType(request.headers["content-type"])) return Effect.succeed(respond(UNSUPPORTED_MEDIA_TYPE.A))
  return request.text.pipe(
    Effect.map((body) => respond(answerBody(settings, snapshot, body, Date.now()))),
    Effect.catchCause(() => Effect.succeed(respond(INTERNAL.A)))
  )
})

listen(HttpRouter.serve(CapacityRoute, { disableLogger: true, disableListenLog: true }))
