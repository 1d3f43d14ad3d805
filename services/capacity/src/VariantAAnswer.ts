import { holdsApiKey } from "@retail/auth"
import { decodeDeliveryRequestA, encodeDeliveryResults, evaluateVariantA, type Snapshot } from "@retail/capacity"
import { Result } from "effect"
import type { CapacitySettings } from "./CapacityConfig.ts"

/** A finished HTTP answer: status, media type and body (plain strings for errors, as the spec asks). */
export interface Answer {
  readonly status: number
  readonly contentType: "application/json" | "text/plain; charset=utf-8"
  readonly body: string
}

export const plain = (status: number, body: string): Answer => ({ status, contentType: "text/plain; charset=utf-8", body })

export const UNAUTHORIZED = plain(401, "Unauthorized: send Authorization: Bearer <api-key>")
export const INTERNAL = plain(500, "Internal server error: the delivery date could not be computed")

export const UNSUPPORTED_MEDIA_TYPE = plain(415, "Unsupported media type: send Content-Type: application/json")


export const isAuthorized = (settings: CapacitySettings, authorization: string | undefined): boolean =>
  holdsApiKey(settings.apiKeys, authorization)

/** Bad JSON is answered before the variant is known, as variant A answers (plain string). */
export const badJson = (error: unknown): Answer =>
  plain(400, `Bad request: the body is not valid JSON (${error instanceof Error ? error.message : String(error)})`)

/** Variant A on a parsed body: one decode, the engine, one encoding (shared parts written once). */
export const answerVariantAInput = (settings: CapacitySettings, snapshot: Snapshot, input: unknown, nowMillis: number): Answer => {
  const decoded = decodeDeliveryRequestA(input)
  if (Result.isFailure(decoded)) return plain(400, `Bad request: ${decoded.failure.message}`)
  const results = evaluateVariantA(snapshot, decoded.success, nowMillis, settings)
  if (Result.isFailure(results)) return plain(404, `Not found: ${results.failure.message}`)
  return { status: 200, contentType: "application/json", body: encodeDeliveryResults(results.success) }
}

/** POST /v1/delivery/capacity, variant A, after the key check: one JSON.parse, one decode, the engine, one encoding. */
export const answerVariantA = (settings: CapacitySettings, snapshot: Snapshot, body: string, nowMillis: number): Answer => {
  let input: unknown
  try {
    input = JSON.parse(body)
  } catch (error) {
    return badJson(error)
  }
  return answerVariantAInput(settings, snapshot, input, nowMillis)
}
