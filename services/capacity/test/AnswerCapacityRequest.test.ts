import { buildSnapshot, decodeNetwork, demoNetwork, emptyLedger, type Snapshot } from "@retail/capacity"
import { type Answer, answerText, type EnginePhase } from "@retail/capacity-wire"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { answerCapacityRequest, type CapacityEndpoint, type CapacityRequest } from "../src/answer/AnswerCapacityRequest.ts"
import { CapacityConfig } from "../src/CapacityConfig.ts"

const settings = CapacityConfig.settings({ apiKeys: new Set(["k"]), maxBodyBytes: 1024, bodyIdleTimeoutMs: 500, bodyMinBytesPerSecond: 100 })
const demo = buildSnapshot(Result.getOrThrow(decodeNetwork(demoNetwork)), emptyLedger)
const now = Date.parse("2027-02-26T10:00:00-05:00")

const variantB = {
  purchaseDate: "2027-03-01",
  saleChannel: "WEB",
  deliveryData: { latitude: -12.1219, longitude: -77.0297, ubigeoCode: "150122" },
  items: [{ skuCode: "SKU-TV-55-4K", origin: "CD-LURIN", quantity: 1 }]
}
const variantA = {
  purchaseDate: "2027-03-01",
  items: [{
    origin: "CD-LURIN", entityType: "CD", skuCode: "SKU-TV-55-4K", zone: "", dispatchType: "NORMAL", quantity: 1,
    destination: "150122", latitude: -12.12, longitude: -77.03, deliveryMode: "HOME_DELIVERY"
  }]
}
const bodyA = JSON.stringify(variantA)
const bodyB = JSON.stringify(variantB)

/** An endpoint over the demo network whose key's rate says `retryAfter`, recording what it was asked. */
const endpointOf = (retryAfter: number | undefined = undefined, snapshot: Snapshot = demo) => {
  const rateTaken: Array<readonly [string, number]> = []
  let engineRuns = 0
  const endpoint: CapacityEndpoint = {
    settings,
    snapshot: () => snapshot,
    takeRate: (key, nowMillis) => {
      rateTaken.push([key, nowMillis])
      return retryAfter
    },
    engineStarted: () => ++engineRuns,
    engineEnded: () => undefined
  }
  return { endpoint, rateTaken, engineRuns: () => engineRuns }
}

const request = (body: string, overrides: Partial<CapacityRequest> = {}): CapacityRequest => ({
  authorization: "Bearer k",
  contentType: "application/json",
  body,
  ended: "whole",
  ...overrides
})

/** Status, the error code (variant B) or "text" (variant A), and Retry-After. */
const shown = (answer: Answer) =>
  [answer.status, answer.contentType === "application/json" ? (JSON.parse(answerText(answer)) as { code?: string }).code ?? "json" : "text", answer.retryAfter]

describe("the answer of POST /v1/delivery/capacity, for both adapters", () => {
  it("refuses in the format of the variant the body reads as, in the order stall, key, media type, rate, size", () => {
    const { endpoint } = endpointOf(7)
    const answer = (body: string, overrides: Partial<CapacityRequest>) => shown(answerCapacityRequest(endpoint, request(body, overrides), now))
    const stranger = { authorization: "Bearer not-a-key", contentType: "text/plain" }
    expect(answer(bodyB.slice(0, 50), { ...stranger, ended: "stalled" })).toEqual([408, "REQUEST_TIMEOUT", undefined])
    expect(answer(bodyA.slice(0, 50), { ...stranger, ended: "stalled" })).toEqual([408, "text", undefined])
    expect(answer(bodyB, { ...stranger, ended: "tooLarge" })).toEqual([401, "UNAUTHORIZED", undefined])
    expect(answer(bodyA, { authorization: undefined })).toEqual([401, "text", undefined])
    expect(answer(bodyB, { contentType: "text/plain", ended: "tooLarge" })).toEqual([415, "UNSUPPORTED_MEDIA_TYPE", undefined])
    expect(answer(bodyA, { contentType: undefined })).toEqual([415, "text", undefined])
    expect(answer(bodyB.slice(0, 50), { ended: "tooLarge" })).toEqual([429, "TOO_MANY_REQUESTS", 7])
    expect(answer(bodyA, {})).toEqual([429, "text", 7])
    const unlimited = endpointOf().endpoint
    expect(shown(answerCapacityRequest(unlimited, request(bodyB.slice(0, 50), { ended: "tooLarge" }), now))).toEqual([413, "PAYLOAD_TOO_LARGE", undefined])
    expect(shown(answerCapacityRequest(unlimited, request(bodyA.slice(0, 40), { ended: "tooLarge" }), now))).toEqual([413, "text", undefined])
  })

  it("takes a token of the key's rate, at the instant it was given, only for an authorized JSON request that did not stall", () => {
    const { endpoint, rateTaken } = endpointOf()
    answerCapacityRequest(endpoint, request(bodyA, { ended: "stalled" }), now)
    answerCapacityRequest(endpoint, request(bodyA, { authorization: "Bearer other" }), now)
    answerCapacityRequest(endpoint, request(bodyA, { authorization: "k" }), now)
    answerCapacityRequest(endpoint, request(bodyA, { contentType: "text/json" }), now)
    expect(rateTaken).toEqual([])
    answerCapacityRequest(endpoint, request(bodyA, { authorization: "Bearer  k ", ended: "tooLarge" }), now)
    answerCapacityRequest(endpoint, request(bodyB, { contentType: "application/json; charset=utf-8" }), now + 1)
    expect(rateTaken).toEqual([["k", now], ["k", now + 1]])
  })

  it("answers each variant in its own shape; a body of neither variant, or not JSON, is a 400", () => {
    const { endpoint, engineRuns } = endpointOf()
    const answer = (body: string) => answerCapacityRequest(endpoint, request(body), now)
    const b = answer(bodyB)
    expect([b.status, b.contentType]).toEqual([200, "application/json"])
    expect(Object.keys(JSON.parse(answerText(b)) as object)).toEqual(["request", "logisticsCapacity", "prioritizationCriteria"])
    const a = answer(bodyA)
    expect([a.status, Array.isArray(JSON.parse(answerText(a)))]).toEqual([200, true])
    expect(shown(answer(JSON.stringify({ ...variantA, purchaseDate: "x" })))).toEqual([400, "text", undefined])
    expect(shown(answer(JSON.stringify({ ...variantB, items: [] })))).toEqual([400, "INVALID_REQUEST", undefined])
    expect(shown(answer("{"))).toEqual([400, "text", undefined])
    expect(answer(`{"purchaseDate":"2027-03-01","saleChannel":"WEB","items":[{`)).toMatchObject({ status: 400, contentType: "application/json" })
    expect(answerText(answer(JSON.stringify({ items: [{ skuCode: "X" }] })))).toContain("the body matches neither variant")
    // The engine's time is measured for every body past the checks, and only for those.
    expect(engineRuns()).toBe(7)
  })

  it("a fault while answering is a 500 in the body's format", () => {
    const broken: Snapshot = new Proxy(demo, {
      get: () => {
        throw new Error("snapshot unreadable")
      }
    })
    const { endpoint } = endpointOf(undefined, broken)
    expect(JSON.parse(answerText(answerCapacityRequest(endpoint, request(bodyB), now))))
      .toEqual({ code: "INTERNAL_ERROR", message: "the delivery date could not be computed", details: {} })
    const a = answerCapacityRequest(endpoint, request(bodyA), now)
    expect({ ...a, body: answerText(a) })
      .toEqual({ status: 500, contentType: "text/plain; charset=utf-8", body: "Internal server error: the delivery date could not be computed" })
  })

  it("marks the engine's phases of a traced request, none for a refusal", () => {
    const marks: Array<EnginePhase> = []
    const phases = { mark: (phase: EnginePhase) => void marks.push(phase) }
    const { endpoint } = endpointOf()
    answerCapacityRequest(endpoint, request(bodyA, { authorization: undefined }), now, phases)
    expect(marks).toEqual([])
    answerCapacityRequest(endpoint, request(bodyB), now, phases)
    expect(marks).toEqual(["engine.started", "decoded", "evaluated", "answered"])
  })
})
