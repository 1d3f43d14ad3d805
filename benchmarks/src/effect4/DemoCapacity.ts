// The capacity endpoint's answer function on the demo network, with nothing of Effect in its interface:
// plain strings and numbers in, a plain `Answer` out. The Effect 4 candidates of issue 19
// (benchmarks/effect4/) import this file from their own process: this file and the engine resolve
// `effect` from the root node_modules, the candidates resolve it from theirs, and no Effect value
// passes between the two installs (`settings.eventsStream`, an Option, is created and read on this
// side only).
import { buildSnapshot, decodeNetwork, demoNetwork, ledgerFromUses } from "@retail/capacity"
import { Option, Result } from "effect"
import { answerCapacity, answerCapacityInput } from "../../../services/capacity/src/CapacityAnswer.ts"
import type { CapacitySettings } from "../../../services/capacity/src/CapacityConfig.ts"
import {
  type Answer,
  INTERNAL,
  isAuthorized,
  isJsonContentType,
  UNAUTHORIZED,
  UNSUPPORTED_MEDIA_TYPE
} from "../../../services/capacity/src/VariantAAnswer.ts"

export type { Answer }

export interface CapacityAnswerHost {
  readonly maxBodyBytes: number
  readonly authorized: (authorization: string | undefined) => boolean
  readonly jsonContentType: (contentType: string | undefined) => boolean
  /** The fast lane's own call (FastLane.ts): the body text, one JSON.parse, the variant's decode, the engine, the encoding. */
  readonly answer: (body: string, nowMillis: number) => Answer
  /** The same after the JSON.parse (a body a framework has parsed or decoded already): the variant's decode, the engine, the encoding. */
  readonly answerParsed: (input: unknown, nowMillis: number) => Answer
  readonly UNAUTHORIZED: Answer
  readonly UNSUPPORTED_MEDIA_TYPE: Answer
  readonly INTERNAL: Answer
}

/**
 * The server's settings at their defaults (CapacityConfig.ts) with the given API keys, and the demo
 * network's snapshot with no usage, as the capacity benchmark's in-process figure builds it (the server
 * builds its snapshot on the usage actors' cells: the same network, the same empty usage).
 */
export const demoCapacityAnswerHost = (apiKeys: ReadonlyArray<string>): CapacityAnswerHost => {
  const settings: CapacitySettings = {
    apiKeys: new Set(apiKeys),
    horizonDays: 30,
    deliveryDatesCount: 5,
    eventsStream: Option.none(),
    maxBodyBytes: 1024 * 1024,
    requestMaxValues: 1_000_000,
    reconcileIntervalMs: 0
  }
  const document = Result.getOrElse(decodeNetwork(demoNetwork), (error) => {
    throw new Error(`the demo network does not decode: ${error.message}`)
  })
  const snapshot = buildSnapshot(document, ledgerFromUses([]))
  return {
    maxBodyBytes: settings.maxBodyBytes,
    authorized: (authorization) => isAuthorized(settings, authorization),
    jsonContentType: isJsonContentType,
    answer: (body, nowMillis) => answerCapacity(settings, snapshot, body, nowMillis),
    answerParsed: (input, nowMillis) => answerCapacityInput(settings, snapshot, input, nowMillis),
    UNAUTHORIZED,
    UNSUPPORTED_MEDIA_TYPE,
    INTERNAL
  }
}
