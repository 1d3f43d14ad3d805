import { buildSnapshot, decodeNetwork, demoNetwork, emptyLedger, type Snapshot } from "@retail/capacity"
import { Option, Result } from "effect"
import { describe, expect, it } from "vitest"
import { answerCapacity, variantOf } from "../src/CapacityAnswer.ts"
import type { CapacitySettings } from "../src/CapacityConfig.ts"

const settings: CapacitySettings = { apiKeys: new Set(["k"]), horizonDays: 30, deliveryDatesCount: 5, eventsStream: Option.none(), maxBodyBytes: 1024 * 1024, requestMaxValues: 1_000_000, reconcileIntervalMs: 0, bodyIdleTimeoutMs: 0, bodyMinBytesPerSecond: 0 }
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

describe("telling the variants apart", () => {
  it("B by saleChannel or deliveryData, A by items with origin or deliveryMode, else neither", () => {
    expect(variantOf(variantB)).toBe("B")
    expect(variantOf({ saleChannel: "WEB" })).toBe("B")
    expect(variantOf({ deliveryData: {} })).toBe("B")
    expect(variantOf({ ...variantA, saleChannel: "WEB" })).toBe("B")
    expect(variantOf(variantA)).toBe("A")
    expect(variantOf({ items: [{ skuCode: "X" }, { deliveryMode: "HOME_DELIVERY" }] })).toBe("A")
    expect(variantOf({ purchaseDate: "2027-03-01", items: [] })).toBe("A")
    expect(variantOf({ items: [{ skuCode: "X" }] })).toBe("NEITHER")
    expect(variantOf([variantA])).toBe("NEITHER")
    expect(variantOf(null)).toBe("NEITHER")
  })

  it("answers each variant in its own shape", () => {
    const b = answerCapacity(settings, demo, JSON.stringify(variantB), now)
    expect([b.status, b.contentType]).toEqual([200, "application/json"])
    expect(Object.keys(JSON.parse(b.body) as object)).toEqual(["request", "logisticsCapacity", "prioritizationCriteria"])
    const a = answerCapacity(settings, demo, JSON.stringify(variantA), now)
    expect(a.status).toBe(200)
    expect(Array.isArray(JSON.parse(a.body))).toBe(true)
    const badA = answerCapacity(settings, demo, JSON.stringify({ ...variantA, purchaseDate: "x" }), now)
    expect([badA.status, badA.contentType]).toEqual([400, "text/plain; charset=utf-8"])
    const badJson = answerCapacity(settings, demo, "{", now)
    expect([badJson.status, badJson.contentType]).toEqual([400, "text/plain; charset=utf-8"])
    const badJsonB = answerCapacity(settings, demo, `{"purchaseDate":"2027-03-01","saleChannel":"WEB","items":[{`, now)
    expect([badJsonB.status, badJsonB.contentType]).toEqual([400, "application/json"])
    expect(JSON.parse(badJsonB.body)).toMatchObject({ code: "INVALID_REQUEST", details: {} })
  })

  it("a fault while computing a variant B answer is its 500 body", () => {
    const broken: Snapshot = new Proxy(demo, {
      get: () => {
        throw new Error("snapshot unreadable")
      }
    })
    const answer = answerCapacity(settings, broken, JSON.stringify(variantB), now)
    expect(answer.status).toBe(500)
    expect(JSON.parse(answer.body)).toEqual({ code: "INTERNAL_ERROR", message: "the delivery date could not be computed", details: {} })
  })
})
