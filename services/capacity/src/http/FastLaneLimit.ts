import type { IncomingMessage } from "node:http"
import { CredentialRateLimiter } from "@retail/limits"
import { Context, Effect, Layer } from "effect"

/** The API-key rate of the fast lane, in plain node:http: the same buckets as the administration endpoints. */
export class FastLaneLimit extends Context.Service<FastLaneLimit, {
  /** Seconds to wait when the (already authorized) request is over its key's rate (a 429), else undefined. */
  readonly retryAfter: (request: IncomingMessage) => number | undefined
}>()("@retail/capacity/FastLaneLimit") {
  static readonly layer = Layer.effect(
    FastLaneLimit,
    Effect.map(CredentialRateLimiter, (limiter) => ({
      retryAfter: (request: IncomingMessage): number | undefined => {
        const key = request.headers.authorization?.slice(7).trim() ?? ""
        return limiter.takeAt("apiKey", key, Date.now())
      }
    }))
  )
}
