import type { Snapshot } from "@retail/capacity"
import type { CapacitySettings } from "./CapacityConfig.ts"
import type { EnginePhases } from "./EnginePhases.ts"
import { type Answer, badJson, plain } from "./Answer.ts"
import { readsAsVariantB } from "./VariantSniff.ts"
import { answerVariantAInput } from "./VariantAAnswer.ts"
import { answerVariantBInput } from "./VariantBAnswer.ts"

export type Variant = "A" | "B" | "NEITHER"

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Which variant a parsed body is, by shape (docs/capacity.md, "Telling the variants apart"):
 * B when the object has `saleChannel` or `deliveryData`; else A when `items` is an empty array
 * (variant A's 400 then names it) or some element of it is an object with `origin` or
 * `deliveryMode`; else neither.
 */
export const variantOf = (input: unknown): Variant => {
  if (!isRecord(input)) return "NEITHER"
  if ("saleChannel" in input || "deliveryData" in input) return "B"
  const items = input["items"]
  if (Array.isArray(items) && (items.length === 0 || items.some((item) => isRecord(item) && ("origin" in item || "deliveryMode" in item)))) {
    return "A"
  }
  return "NEITHER"
}

export const NEITHER_VARIANT = plain(
  400,
  "Bad request: the body matches neither variant: variant A has items with origin and deliveryMode; " +
    "variant B has saleChannel and deliveryData"
)

/**
 * POST /v1/delivery/capacity after the key check: one JSON.parse, then the variant's answer.
 * `phases`: only for a traced request (EnginePhases.ts).
 */
export const answerCapacity = (settings: CapacitySettings, snapshot: Snapshot, body: string, nowMillis: number, phases?: EnginePhases): Answer => {
  let input: unknown
  try {
    input = JSON.parse(body)
  } catch (error) {
    return badJson(readsAsVariantB(body) ? "B" : "A", error)
  }
  return answerCapacityInput(settings, snapshot, input, nowMillis, phases)
}

/** The answer to a body already parsed: the variant is told by its shape. */
export const answerCapacityInput = (settings: CapacitySettings, snapshot: Snapshot, input: unknown, nowMillis: number, phases?: EnginePhases): Answer => {
  switch (variantOf(input)) {
    case "A":
      return answerVariantAInput(settings, snapshot, input, nowMillis, phases)
    case "B":
      return answerVariantBInput(settings, snapshot, input, nowMillis, phases)
    case "NEITHER":
      return NEITHER_VARIANT
  }
}
