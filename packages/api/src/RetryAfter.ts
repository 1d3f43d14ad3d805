import { HttpApp, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { TooManyRequests } from "./Errors.ts"

/** Fails with 429 TooManyRequests and puts `Retry-After: <seconds>` on the response that carries it. */
export const tooManyRequests = (retryAfterSeconds: number, message: string) =>
  Effect.zipRight(
    HttpApp.appendPreResponseHandler((_request, response) =>
      Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(retryAfterSeconds)))
    ),
    Effect.fail(new TooManyRequests({ message }))
  )
