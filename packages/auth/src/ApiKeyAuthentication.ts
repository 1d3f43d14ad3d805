import { CapacityApiKey, tooManyRequests } from "@retail/api"
import { CredentialRateLimiter } from "@retail/limits"
import { Effect, Layer, Redacted } from "effect"
import { HttpApiError } from "effect/http-api"
import { ApiKeys } from "./ApiKeys.ts"

/** Checks the capacity API key, then takes a request from that key's rate (429 beyond). */
export const ApiKeyAuthentication = Layer.effect(
  CapacityApiKey,
  Effect.gen(function*() {
    const keys = yield* ApiKeys
    const limiter = yield* CredentialRateLimiter
    return CapacityApiKey.of({
      apiKey: (httpEffect, { credential }) =>
        keys.has(Redacted.value(credential))
          ? limiter.take("apiKey", Redacted.value(credential)).pipe(
            Effect.catchTag("RateLimited", (limited) =>
              tooManyRequests(limited.retryAfterSeconds, `Too many requests for this API key; retry after ${limited.retryAfterSeconds} s`)
            ),
            Effect.andThen(httpEffect)
          )
          : Effect.fail(new HttpApiError.Unauthorized())
    })
  })
)
