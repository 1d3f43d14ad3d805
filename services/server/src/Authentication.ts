import { Authentication, tooManyRequests } from "@retail/api"
import { CredentialRateLimiter, RateLimiterLive } from "@retail/limits"
import { TokenVerifier } from "@retail/service-upload"
import { Effect, Layer, Redacted } from "effect"

/** Verifies the bearer JWT, then takes a request from its company's rate (its subject's without a company). */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const verifier = yield* TokenVerifier
    const limiter = yield* CredentialRateLimiter
    return {
      bearer: (token) =>
        Effect.tap(verifier.verify(Redacted.value(token)), (principal) =>
          limiter.take("token", principal.company === null ? `sub:${principal.subject}` : `company:${principal.company}`).pipe(
            Effect.catchTag("RateLimited", (limited) =>
              tooManyRequests(limited.retryAfterSeconds, `Too many requests for this company; retry after ${limited.retryAfterSeconds} s`)
            )
          ))
    }
  })
).pipe(Layer.provide([TokenVerifier.Default, RateLimiterLive]))
