import {
  decodeDeliveryRequestB,
  encodeDeliveryResponseB,
  ERROR_CODES_B,
  type ErrorBodyB,
  type ErrorCodeB,
  evaluateVariantB,
  type Snapshot
} from "@retail/capacity"
import { Result } from "effect"
import type { CapacitySettings } from "./CapacityConfig.ts"
import type { Answer } from "./Answer.ts"

/** Variant B's error body `{code, message, details}`, with the status its code stands for. */
export const errorB = (code: ErrorCodeB, message: string, details: ErrorBodyB["details"] = {}): Answer => ({
  status: ERROR_CODES_B[code],
  contentType: "application/json",
  body: JSON.stringify({ code, message, details })
})

const INTERNAL_B_MESSAGE = "the delivery date could not be computed"

/** Variant B on a parsed body: decode, business rules, the engine, one encoding (shared parts written once); a fault is its 500 body. */
export const answerVariantBInput = (settings: CapacitySettings, snapshot: Snapshot, input: unknown, nowMillis: number): Answer => {
  try {
    const decoded = decodeDeliveryRequestB(input)
    if (Result.isFailure(decoded)) {
      const { code, issues, message } = decoded.failure
      return errorB(code, message, { fields: issues.map((issue) => ({ field: issue.path, message: issue.message })) })
    }
    const response = evaluateVariantB(snapshot, decoded.success, nowMillis, settings)
    if (Result.isFailure(response)) return errorB("NO_ROUTE_FOUND", response.failure.message)
    return { status: 200, contentType: "application/json", body: encodeDeliveryResponseB(response.success) }
  } catch {
    return errorB("INTERNAL_ERROR", INTERNAL_B_MESSAGE)
  }
}
