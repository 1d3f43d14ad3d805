import type { EngineOptions, Snapshot } from "@retail/capacity"
import { Result } from "effect"
import { type Answer, plainError } from "./Answer.ts"
import type { EnginePhases } from "./EnginePhases.ts"
import { decodeDeliveryRequestA, evaluateVariantA } from "./VariantAMapping.ts"
import { encodeDeliveryResults } from "./VariantAText.ts"

/** Variant A on a parsed body: one decode, the engine, one encoding (shared parts written once). */
export const answerVariantA = (options: EngineOptions, snapshot: Snapshot, input: unknown, nowMillis: number, phases?: EnginePhases): Answer => {
  const decoded = decodeDeliveryRequestA(input)
  phases?.mark("decoded")
  if (Result.isFailure(decoded)) return plainError("INVALID_REQUEST", `Bad request: ${decoded.failure.message}`)
  const results = evaluateVariantA(snapshot, decoded.success, nowMillis, options)
  phases?.mark("evaluated")
  if (Result.isFailure(results)) return plainError("NO_ROUTE_FOUND", `Not found: ${results.failure.message}`)
  return { status: 200, contentType: "application/json", body: encodeDeliveryResults(results.success) }
}
