import { describe, expect, it } from "@effect/vitest"
import { answerVariantA } from "../src/support/CapacityInProcess.ts"
import { liveDemo, ordersOfBodies } from "../src/support/LiveDemo.ts"

const body = JSON.stringify({
  purchaseDate: "2027-03-01",
  items: [{ origin: "CD-LURIN", entityType: "CD", skuCode: "SKU-TV-55-4K", zone: "", dispatchType: "NORMAL", quantity: 2, destination: "150122", latitude: -12.12, longitude: -77.03, deliveryMode: "HOME_DELIVERY", weight: 3 }]
})
const at = Date.parse("2027-03-01T14:00:00Z")
const text = (bytes: Uint8Array) => Buffer.from(bytes).toString("utf8")

describe("LiveDemo", () => {
  it("takes what an order on a body's dispatch takes: the answer shows it, and releaseAll gives it back", () => {
    const live = liveDemo()
    const [order] = ordersOfBodies(live.snapshot, [body], at)
    if (order === undefined) throw new Error("the demo body has no planned dispatch")
    expect(order.map((use) => use.resource._tag)).toContain("Picking")
    const before = text(answerVariantA(live.snapshot, body, "variant A", at))
    expect(before).toContain(`"usedPickingCapacity":0`)
    live.take(order)
    const after = text(answerVariantA(live.snapshot, body, "variant A", at))
    expect(after).toContain(`"usedPickingCapacity":2`)
    live.releaseAll()
    expect(text(answerVariantA(live.snapshot, body, "variant A", at))).toBe(before)
  })
})
