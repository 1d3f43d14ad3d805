/**
 * Token buckets by key, refilled continuously: `perSecond` tokens a second up to `burst`.
 * Synchronous and allocation-free per call, because the capacity fast lane calls it on every
 * request (@effect/experimental's RateLimiter cost ~15 µs a call there through Effect.runSync,
 * half the engine's own work; this costs well under 1 µs).
 */
export interface TokenBuckets {
  /** Takes a token: undefined when there was one, else the milliseconds until there is one. */
  readonly take: (key: string, nowMillis: number) => number | undefined
}

export const makeTokenBuckets = (perSecond: number, burst: number): TokenBuckets => {
  const buckets = new Map<string, { tokens: number; at: number }>()
  const perMilli = perSecond / 1000
  return {
    take: (key, nowMillis) => {
      let bucket = buckets.get(key)
      if (bucket === undefined) {
        bucket = { tokens: burst, at: nowMillis }
        buckets.set(key, bucket)
      } else if (nowMillis > bucket.at) {
        bucket.tokens = Math.min(burst, bucket.tokens + (nowMillis - bucket.at) * perMilli)
        bucket.at = nowMillis
      }
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1
        return undefined
      }
      return (1 - bucket.tokens) / perMilli
    }
  }
}
