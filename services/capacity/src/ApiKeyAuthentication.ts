import { HttpApiError } from "@effect/platform"
import { CapacityApiKey, tooManyRequests } from "@retail/api"
import { CredentialRateLimiter } from "@retail/limits"
import { Effect, Layer, Redacted } from "effect"
import { CapacityConfig } from "./CapacityConfig.ts"

export const ApiKeyAuthentication = Layer.effect(
  CapacityApiKey,
  Effect.gen(function*() {
    const config = yield* CapacityConfig
    const limiter = yield* CredentialRateLimiter
    return {
      apiKey: (key: Redacted.Redacted<string>) =>
        config.apiKeys.has(Redacted.value(key))
          ? limiter.take("apiKey", Redacted.value(key)).pipe(
            Effect.catchTag("RateLimited", (limited) =>
              tooManyRequests(limited.retryAfterSeconds, `Too many requests for this API key; retry after ${limited.retryAfterSeconds} s`)
            )
          )
          : Effect.fail(new HttpApiError.Unauthorized())
    }
  })
)
