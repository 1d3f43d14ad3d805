import { Authentication, CurrentPrincipal, tooManyRequests } from "@retail/api"
import { CredentialRateLimiter, RateLimiterLive } from "@retail/limits"
import { Effect, Layer, Redacted } from "effect"
import { TokenVerifier } from "./TokenVerifier.ts"

/** Verifies the bearer JWT, then takes a request from its company's rate (its subject's without a company). */
export const BearerAuthentication = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const verifier = yield* TokenVerifier
    const limiter = yield* CredentialRateLimiter
    return Authentication.of({
      bearer: (httpEffect, { credential }) =>
        verifier.verify(Redacted.value(credential)).pipe(
          Effect.tap((principal) =>
            limiter.take("token", principal.company === null ? `sub:${principal.subject}` : `company:${principal.company}`).pipe(
              Effect.catchTag("RateLimited", (limited) =>
                tooManyRequests(limited.retryAfterSeconds, `Too many requests for this company; retry after ${limited.retryAfterSeconds} s`)
              )
            )
          ),
          Effect.flatMap((principal) => Effect.provideService(httpEffect, CurrentPrincipal, principal))
        )
    })
  })
).pipe(Layer.provide([TokenVerifier.layer, RateLimiterLive]))
