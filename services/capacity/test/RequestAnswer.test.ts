import { buildSnapshot, decodeNetwork, demoNetwork, emptyLedger } from "@retail/capacity"
import { Option, Result } from "effect"
import { describe, expect, it } from "vitest"
import type { CapacitySettings } from "../src/CapacityConfig.ts"
import { answerRequest } from "../src/RequestAnswer.ts"

const settings: CapacitySettings = { apiKeys: new Set(["k"]), horizonDays: 30, deliveryDatesCount: 5, eventsStream: Option.none(), maxBodyBytes: 1024, requestMaxValues: 1_000_000, reconcileIntervalMs: 0, bodyIdleTimeoutMs: 0, bodyMinBytesPerSecond: 0 }
const demo = buildSnapshot(Result.getOrThrow(decodeNetwork(demoNetwork)), emptyLedger)
const now = Date.parse("2027-02-26T10:00:00-05:00")
const passed = { authorized: true, json: true, retryAfter: undefined }

const bodyB = JSON.stringify({ purchaseDate: "2027-03-01", saleChannel: "WEB", deliveryData: { latitude: -12.12, longitude: -77.03 }, items: [] })
const bodyA = JSON.stringify({ purchaseDate: "2027-03-01", items: [{ origin: "CD-LURIN" }] })

const shown = (checks: typeof passed | { authorized: boolean; json: boolean; retryAfter: number | undefined }, body: string, tooLarge = false) => {
  const answer = answerRequest(settings, demo, checks, body, tooLarge, now)
  return [answer.status, answer.contentType === "application/json" ? (JSON.parse(answer.body) as { code: string }).code : "text", answer.retryAfter]
}

describe("the answer of both lanes once the body is read", () => {
  it("refuses in the format of the variant the body reads as, in the order key, media type, rate, size", () => {
    expect(shown({ authorized: false, json: false, retryAfter: undefined }, bodyB)).toEqual([401, "UNAUTHORIZED", undefined])
    expect(shown({ authorized: false, json: false, retryAfter: undefined }, bodyA)).toEqual([401, "text", undefined])
    expect(shown({ authorized: true, json: false, retryAfter: undefined }, bodyB)).toEqual([415, "UNSUPPORTED_MEDIA_TYPE", undefined])
    expect(shown({ authorized: true, json: false, retryAfter: undefined }, bodyA)).toEqual([415, "text", undefined])
    expect(shown({ authorized: true, json: true, retryAfter: 5 }, bodyB, true)).toEqual([429, "TOO_MANY_REQUESTS", 5])
    expect(shown({ authorized: true, json: true, retryAfter: 5 }, bodyA)).toEqual([429, "text", 5])
    expect(shown(passed, bodyB.slice(0, 50), true)).toEqual([413, "PAYLOAD_TOO_LARGE", undefined])
    expect(shown(passed, bodyA.slice(0, 40), true)).toEqual([413, "text", undefined])
    expect(shown(passed, bodyB.slice(0, 50))).toEqual([400, "INVALID_REQUEST", undefined])
    expect(shown(passed, bodyB)).toEqual([400, "INVALID_REQUEST", undefined])
  })
})
