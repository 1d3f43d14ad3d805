import { isJsonContentType, JsonContentType, UnsupportedMediaType, unsupportedJsonMessage } from "@retail/api"
import { Effect, Layer } from "effect"
import { HttpServerRequest } from "effect/http"

/** 415 `{message}` for a body of PUT /v1/network or the consumptions that is not JSON by isJsonContentType's rule. */
export const JsonContentTypeLive = Layer.succeed(JsonContentType, (httpEffect) =>
  Effect.gen(function*() {
    const contentType = (yield* HttpServerRequest.HttpServerRequest).headers["content-type"]
    if (!isJsonContentType(contentType)) return yield* new UnsupportedMediaType({ message: unsupportedJsonMessage(contentType) })
    return yield* httpEffect
  }))
