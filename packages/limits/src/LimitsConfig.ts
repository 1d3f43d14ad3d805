import { number, positiveInteger } from "@retail/config"
import { Config, Context, Effect, Layer } from "effect"

/** A token bucket: `perSecond` tokens refill each second up to `burst`; `perSecond` 0 turns the limit off. */
export interface RateRule {
  readonly perSecond: number
  readonly burst: number
}

/** The limits that protect the service from one caller (documented in README.md and docs/limits.md). */
export interface LimitsSettings {
  /** Requests of one company (its `company` claim, else the token's `sub`) on the bearer-JWT endpoints. */
  readonly token: RateRule
  /** Requests of one capacity API key, on the fast lane and the administration endpoints. */
  readonly apiKey: RateRule
  /** File loads of one company in flight at once on the public listener (`/handle-json`, `/handle-csv`). */
  readonly fileLoadsPerCompany: number
  /** The same on the internal listener (`/handle-json-int`), counted apart from the public ones. */
  readonly internalFileLoadsPerCompany: number
  /** What a 429 for too many file loads in flight advises in Retry-After. */
  readonly fileLoadRetryAfterSeconds: number
}

export class LimitsConfig extends Context.Service<LimitsConfig, LimitsSettings>()("@retail/limits/LimitsConfig") {
  static readonly layer = Layer.effect(
    LimitsConfig,
    Effect.gen(function*() {
      const rule = (prefix: string, perSecond: number, burst: number) =>
        Config.all({
          perSecond: number(`${prefix}_RATE_LIMIT_PER_SECOND`, perSecond, { min: 0, note: "0: no limit" }),
          burst: positiveInteger(`${prefix}_RATE_LIMIT_BURST`, burst)
        })
      return {
        token: yield* rule("TOKEN", 50, 100),
        apiKey: yield* rule("API_KEY", 0, 1000),
        fileLoadsPerCompany: yield* positiveInteger("FILE_LOADS_PER_COMPANY", 4),
        internalFileLoadsPerCompany: yield* positiveInteger("INTERNAL_FILE_LOADS_PER_COMPANY", 4),
        fileLoadRetryAfterSeconds: yield* positiveInteger("FILE_LOAD_RETRY_AFTER_SECONDS", 5)
      }
    })
  )

  static readonly test = (overrides: Partial<LimitsSettings> = {}) =>
    Layer.succeed(LimitsConfig, {
      token: { perSecond: 0, burst: 1 },
      apiKey: { perSecond: 0, burst: 1 },
      fileLoadsPerCompany: 4,
      internalFileLoadsPerCompany: 4,
      fileLoadRetryAfterSeconds: 5,
      ...overrides
    })
}
