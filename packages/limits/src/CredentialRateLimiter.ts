import { Clock, Context, Data, Effect, Layer } from "effect"
import { LimitsConfig, type RateRule } from "./LimitsConfig.ts"
import { makeTokenBuckets } from "./TokenBuckets.ts"

export type CredentialKind = "token" | "apiKey"

/** A caller went over its rate; it may try again after `retryAfterSeconds`. */
export class RateLimited extends Data.TaggedError("RateLimited")<{
  readonly kind: CredentialKind
  readonly retryAfterSeconds: number
}> {}

const bucketsFor = (rule: RateRule) => (rule.perSecond === 0 ? undefined : makeTokenBuckets(rule.perSecond, rule.burst))

/**
 * A token bucket per verified credential, in this process's memory. Only verified credentials
 * reach it, so its keys are bounded by the companies, subjects and API keys that exist.
 */
export class CredentialRateLimiter extends Context.Service<CredentialRateLimiter>()("@retail/limits/CredentialRateLimiter", {
  make: Effect.gen(function*() {
    const settings = yield* LimitsConfig
    const buckets = { token: bucketsFor(settings.token), apiKey: bucketsFor(settings.apiKey) }

    /** For plain node:http code: undefined when allowed, else the whole seconds to advise in Retry-After. */
    const takeAt = (kind: CredentialKind, key: string, nowMillis: number): number | undefined => {
      const waitMillis = buckets[kind]?.take(key, nowMillis)
      return waitMillis === undefined ? undefined : Math.max(1, Math.ceil(waitMillis / 1000))
    }

    /** Takes one request's token from the credential's bucket, or fails saying when to retry. */
    const take = (kind: CredentialKind, key: string): Effect.Effect<void, RateLimited> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const retryAfterSeconds = takeAt(kind, key, now)
        return retryAfterSeconds === undefined ? Effect.void : Effect.fail(new RateLimited({ kind, retryAfterSeconds }))
      })

    return { take, takeAt } as const
  })
}) {
  static readonly layer = Layer.effect(CredentialRateLimiter, CredentialRateLimiter.make)
}
