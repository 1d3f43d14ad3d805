import type { Snapshot } from "@retail/capacity"
import { type Answer, type ErrorFormat, INTERNAL, payloadTooLarge, tooManyRequests, UNAUTHORIZED, UNSUPPORTED_MEDIA_TYPE } from "./Answer.ts"
import { answerCapacity } from "./CapacityAnswer.ts"
import type { CapacitySettings } from "./CapacityConfig.ts"
import type { EnginePhases } from "./EnginePhases.ts"
import { readsAsVariantB } from "./VariantSniff.ts"

/** What was checked of a request before its body was read, in this order. */
export interface RequestChecks {
  /** A key of CAPACITY_API_KEYS. */
  readonly authorized: boolean
  /** A JSON Content-Type (checked only when authorized). */
  readonly json: boolean
  /** Seconds to wait when the key is over its rate (checked only when both hold). */
  readonly retryAfter: number | undefined
}

/** The error format of a body that may not be readable: variant B's when it reads as variant B (VariantSniff.ts). */
export const formatOf = (body: string): ErrorFormat => (readsAsVariantB(body) ? "B" : "A")

/**
 * POST /v1/delivery/capacity once its body has been read (`tooLarge`: only its first
 * CAPACITY_MAX_BODY_BYTES were kept), for both lanes (FastLane.ts, DeliveryCapacityHttp.ts): a
 * refusal in the format of the variant the body reads as, else the variant's answer. `phases`:
 * only for a traced request, marked from the engine's start (a refusal never starts it).
 */
export const answerRequest = (
  settings: CapacitySettings,
  snapshot: Snapshot,
  checks: RequestChecks,
  body: string,
  tooLarge: boolean,
  nowMillis: number,
  phases?: EnginePhases
): Answer => {
  try {
    if (!checks.authorized) return UNAUTHORIZED[formatOf(body)]
    if (!checks.json) return UNSUPPORTED_MEDIA_TYPE[formatOf(body)]
    if (checks.retryAfter !== undefined) return tooManyRequests(formatOf(body), checks.retryAfter)
    if (tooLarge) return payloadTooLarge(formatOf(body), settings.maxBodyBytes)
    phases?.mark("engine.started")
    return answerCapacity(settings, snapshot, body, nowMillis, phases)
  } catch {
    return INTERNAL[formatOf(body)]
  }
}
