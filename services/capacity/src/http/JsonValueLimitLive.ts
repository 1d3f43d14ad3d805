import { JsonValueLimit, PayloadTooLarge } from "@retail/api"
import { measureJson } from "@retail/ingest"
import { Effect, Layer, Option } from "effect"
import { HttpMethod, HttpServerRequest } from "effect/http"
import { Buffer } from "node:buffer"
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
      if (Option.isNone(text) || text.value.length <= requestMaxValues) return yield* httpEffect
      const size = measureJson(Buffer.from(text.value, "utf8"), requestMaxValues, Number.POSITIVE_INFINITY)
      if (size._tag === "TooManyValues") {
        return yield* new PayloadTooLarge({
          message: `The request body has more than ${requestMaxValues} JSON values (REQUEST_MAX_VALUES); ` +
            `the value at byte ${size.offset} is one too many`
        })
      }
      return yield* httpEffect
    }))
)
