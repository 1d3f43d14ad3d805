import { Effect } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"
import { TooManyRequests } from "./Errors.ts"

/** Fails with 429 TooManyRequests and puts `Retry-After: <seconds>` on the response that carries it. */
export const tooManyRequests = (retryAfterSeconds: number, message: string) =>
  Effect.andThen(
    HttpEffect.appendPreResponseHandler((_request, response) =>
      Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(retryAfterSeconds)))
    ),
    Effect.fail(new TooManyRequests({ message }))
  )
