import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { CredentialRateLimiter, LimitsConfig, makeTokenBuckets } from "../src/index.ts"

const limiter = (perSecond: number, burst: number) =>
  CredentialRateLimiter.layer.pipe(Layer.provide(LimitsConfig.test({ token: { perSecond, burst }, apiKey: { perSecond: 0, burst: 1 } })))

describe("TokenBuckets", () => {
  it("refills continuously up to the burst and says how long until the next token", () => {
    const buckets = makeTokenBuckets(2, 3)
    expect([buckets.take("a", 0), buckets.take("a", 0), buckets.take("a", 0)]).toEqual([undefined, undefined, undefined])
    expect(buckets.take("a", 0)).toBe(500)
    expect(buckets.take("a", 250)).toBe(250)
    expect(buckets.take("a", 500)).toBeUndefined()
    expect(buckets.take("b", 500)).toBeUndefined()
    // A long pause refills to the burst, not beyond.
    for (let i = 0; i < 3; i++) expect(buckets.take("a", 60_000)).toBeUndefined()
    expect(buckets.take("a", 60_000)).toBe(500)
  })
})

describe("CredentialRateLimiter", () => {
  it.effect("lets a burst through, then refuses with the whole seconds until a token is back, per credential", () =>
    Effect.gen(function*() {
      const { take } = yield* CredentialRateLimiter
      for (let i = 0; i < 3; i++) yield* take("token", "ACME")
      const refused = yield* Effect.flip(take("token", "ACME"))
      expect(refused).toMatchObject({ _tag: "RateLimited", kind: "token", retryAfterSeconds: 2 })
      yield* take("token", "OTHER")
      yield* TestClock.adjust("2 seconds")
      yield* take("token", "ACME")
      expect((yield* Effect.flip(take("token", "ACME")))._tag).toBe("RateLimited")
    }).pipe(Effect.provide(limiter(0.5, 3))))

  it.effect("a rate of 0 is no limit; API keys and tokens have their own buckets", () =>
    Effect.gen(function*() {
      const { take, takeAt } = yield* CredentialRateLimiter
      for (let i = 0; i < 1000; i++) yield* take("apiKey", "k")
      expect(takeAt("apiKey", "k", 0)).toBeUndefined()
      expect(takeAt("token", "k", 0)).toBeUndefined()
      expect(takeAt("token", "k", 0)).toBe(1)
    }).pipe(Effect.provide(limiter(1, 1))))
})
