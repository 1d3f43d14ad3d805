import { isJsonContentType } from "@retail/api"
import { bearerCredential } from "@retail/auth"
import type { Snapshot } from "@retail/capacity"
import {
  type Answer,
  answerVariantA,
  answerVariantB,
  badJson,
  bodyTimeout,
  type EnginePhases,
  formatOf,
  INTERNAL,
  NEITHER_VARIANT,
  payloadTooLarge,
  tooManyRequests,
  UNAUTHORIZED,
  UNSUPPORTED_MEDIA_TYPE,
  variantOf
} from "@retail/capacity-wire"
import type { CapacitySettings } from "../CapacityConfig.ts"

/** POST /v1/delivery/capacity as an adapter hands it over: two headers and the body, once it ended or stalled. */
export interface CapacityRequest {
  readonly authorization: string | undefined
  readonly contentType: string | undefined
  /** The body's text: what arrived of it, at most CAPACITY_MAX_BODY_BYTES (RequestBody.ts). */
  readonly body: string
  /**
   * How the body ended: `whole`; `tooLarge`, read to its end but longer than CAPACITY_MAX_BODY_BYTES;
   * `stalled`, ended by a body watchdog (UPLOAD_IDLE_TIMEOUT_MS, UPLOAD_MIN_BYTES_PER_SECOND).
   */
  readonly ended: "whole" | "tooLarge" | "stalled"
}

/** What the answer reads besides the request, all of it given: the function itself does no I/O. */
export interface CapacityEndpoint {
  readonly settings: CapacitySettings
  /** The network replica's current snapshot. */
  readonly snapshot: () => Snapshot
  /** Takes one request of this API key's rate at `nowMillis`: undefined when allowed, else the seconds to advise in Retry-After. */
  readonly takeRate: (key: string, nowMillis: number) => number | undefined
  /** The engine's duration metric, around the work on a body that passed every check: a clock read, then its observation. */
  readonly engineStarted: () => number
  readonly engineEnded: (startedAt: number) => void
}

/**
 * The one answer of POST /v1/delivery/capacity, for both adapters (the fast lane, FastLane.ts, and
 * the HttpApi route, DeliveryCapacityHttp.ts). A stalled body is answered 408; then, in this
 * order, the API key (401), the media type (415), the key's rate (429, a token taken only by an
 * authorized JSON request) and the size (413); every refusal in the format of the variant the body
 * reads as (VariantSniff.ts). A body past them is parsed once and answered by its variant, told by
 * shape; neither variant is a plain 400. `phases`: only for a traced request, marked from the
 * engine's start (a refusal never starts it).
 */
export const answerCapacityRequest = (
  endpoint: CapacityEndpoint,
  request: CapacityRequest,
  nowMillis: number,
  phases?: EnginePhases
): Answer => {
  const { settings } = endpoint
  const body = request.body
  try {
    if (request.ended === "stalled") return bodyTimeout(formatOf(body), settings.bodyIdleTimeoutMs, settings.bodyMinBytesPerSecond)
    const key = bearerCredential(request.authorization)
    if (key === undefined || !settings.apiKeys.has(key)) return UNAUTHORIZED[formatOf(body)]
    if (!isJsonContentType(request.contentType)) return UNSUPPORTED_MEDIA_TYPE[formatOf(body)]
    const retryAfter = endpoint.takeRate(key, nowMillis)
    if (retryAfter !== undefined) return tooManyRequests(formatOf(body), retryAfter)
    if (request.ended === "tooLarge") return payloadTooLarge(formatOf(body), settings.maxBodyBytes)
    phases?.mark("engine.started")
    const startedAt = endpoint.engineStarted()
    const answer = answerBody(settings, endpoint.snapshot(), body, nowMillis, phases)
    phases?.mark("answered")
    endpoint.engineEnded(startedAt)
    return answer
  } catch {
    return INTERNAL[formatOf(body)]
  }
}

/** A body past every check: one JSON.parse, then its variant's answer (the benchmarks' in-process candidates call it too). */
export const answerBody = (settings: CapacitySettings, snapshot: Snapshot, body: string, nowMillis: number, phases?: EnginePhases): Answer => {
  let input: unknown
  try {
    input = JSON.parse(body)
  } catch (error) {
    return badJson(formatOf(body), error)
  }
  return answerInput(settings, snapshot, input, nowMillis, phases)
}

/** A body already parsed: the variant by its shape. */
export const answerInput = (settings: CapacitySettings, snapshot: Snapshot, input: unknown, nowMillis: number, phases?: EnginePhases): Answer => {
  switch (variantOf(input)) {
    case "A":
      return answerVariantA(settings, snapshot, input, nowMillis, phases)
    case "B":
      return answerVariantB(settings, snapshot, input, nowMillis, phases)
    case "NEITHER":
      return NEITHER_VARIANT
  }
}
