import { JsonValueLimit } from "@retail/api"
import { Effect, Layer, Option } from "effect"
import { HttpMethod, HttpServerRequest } from "effect/http"
import { tooManyValues } from "../answer/JsonValueCount.ts"
import { CapacityConfig } from "../CapacityConfig.ts"

/**
 * REQUEST_MAX_VALUES on the bodies the framework parses itself. The body is read here as the text
 * the framework then parses (the request caches it); a failed read is left to the handler, which
 * meets the same cached failure and answers it as before.
 */
export const JsonValueLimitLive = Layer.effect(
  JsonValueLimit,
  Effect.map(CapacityConfig, ({ requestMaxValues }) => (httpEffect) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      if (!HttpMethod.hasBody(request.method)) return yield* httpEffect
      const text = yield* Effect.option(request.text)
      if (Option.isNone(text)) return yield* httpEffect
      const refusal = tooManyValues(text.value, requestMaxValues)
      return refusal === undefined ? yield* httpEffect : yield* refusal
    }))
)
