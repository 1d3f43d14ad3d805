import type { IncomingMessage, ServerResponse } from "node:http"
import { CredentialRateLimiter } from "@retail/limits"
import { Context, Effect, Layer } from "effect"

/** The API-key rate of the fast lane, in plain node:http: the same buckets as the administration endpoints. */
export class FastLaneLimit extends Context.Service<FastLaneLimit, {
  /** True when the (already authorized) request was over its key's rate and has been answered 429. */
  readonly refused: (request: IncomingMessage, response: ServerResponse) => boolean
}>()("@retail/capacity/FastLaneLimit") {
  static readonly layer = Layer.effect(
    FastLaneLimit,
    Effect.map(CredentialRateLimiter, (limiter) => ({
      refused: (request: IncomingMessage, response: ServerResponse): boolean => {
        const key = request.headers.authorization?.slice(7).trim() ?? ""
        const retryAfter = limiter.takeAt("apiKey", key, Date.now())
        if (retryAfter === undefined) return false
        request.resume()
        const body = `Too many requests for this API key; retry after ${retryAfter} s`
        response.writeHead(429, {
          "content-type": "text/plain; charset=utf-8",
          "content-length": Buffer.byteLength(body),
          "retry-after": String(retryAfter)
        })
        response.end(body)
        return true
      }
    }))
  )
}
