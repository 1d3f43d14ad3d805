import type { EngineOptions, Snapshot } from "@retail/capacity"
import { Result } from "effect"
import { type Answer, errorB, INTERNAL } from "./Answer.ts"
import type { EnginePhases } from "./EnginePhases.ts"
import { decodeDeliveryRequestB } from "./VariantBDecode.ts"
import { evaluateVariantB } from "./VariantBMapping.ts"
import { encodeDeliveryResponseB } from "./VariantBText.ts"

/** Variant B on a parsed body: decode, business rules, the engine, one encoding (shared parts written once); a fault is its 500 body. */
export const answerVariantB = (options: EngineOptions, snapshot: Snapshot, input: unknown, nowMillis: number, phases?: EnginePhases): Answer => {
  try {
    const decoded = decodeDeliveryRequestB(input)
    phases?.mark("decoded")
    if (Result.isFailure(decoded)) {
      const { code, issues, message } = decoded.failure
      return errorB(code, message, { fields: issues.map((issue) => ({ field: issue.path, message: issue.message })) })
    }
    const response = evaluateVariantB(snapshot, decoded.success, nowMillis, options)
    phases?.mark("evaluated")
    if (Result.isFailure(response)) return errorB("NO_ROUTE_FOUND", response.failure.message)
    return { status: 200, contentType: "application/json", body: encodeDeliveryResponseB(response.success) }
  } catch {
    return INTERNAL.B
  }
}
