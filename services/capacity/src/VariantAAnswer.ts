import { type Snapshot } from "@retail/capacity"
import { decodeDeliveryRequestA, encodeDeliveryResults, evaluateVariantA } from "@retail/capacity-wire"
import { Result } from "effect"
import { type Answer, plain } from "./Answer.ts"
import type { CapacitySettings } from "./CapacityConfig.ts"
import type { EnginePhases } from "./EnginePhases.ts"

/** Variant A on a parsed body: one decode, the engine, one encoding (shared parts written once). */
export const answerVariantAInput = (settings: CapacitySettings, snapshot: Snapshot, input: unknown, nowMillis: number, phases?: EnginePhases): Answer => {
  const decoded = decodeDeliveryRequestA(input)
  phases?.mark("decoded")
  if (Result.isFailure(decoded)) return plain(400, `Bad request: ${decoded.failure.message}`)
  const results = evaluateVariantA(snapshot, decoded.success, nowMillis, settings)
  phases?.mark("evaluated")
  if (Result.isFailure(results)) return plain(404, `Not found: ${results.failure.message}`)
  return { status: 200, contentType: "application/json", body: encodeDeliveryResults(results.success) }
}
