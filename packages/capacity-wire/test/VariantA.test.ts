import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { buildSnapshot, decodeNetwork, demoNetwork, emptyLedger } from "@retail/capacity"
import { decodeDeliveryRequestA, type DeliveryRequestA, evaluateVariantA } from "../src/index.ts"
import { limaTime, snapshotOf } from "../../capacity/test/fixtures.ts"

const baseItem = {
  origin: "CD1",
  entityType: "CD",
  skuCode: "SKU-A",
  zone: "",
  dispatchType: "NORMAL",
  quantity: 1,
  destination: "150122",
  latitude: -12.12,
  longitude: -77.03,
  deliveryMode: "HOME_DELIVERY"
}

const decode = (input: unknown): DeliveryRequestA => Result.getOrThrow(decodeDeliveryRequestA(input))
const badRequest = (input: unknown): string =>
  Result.match(decodeDeliveryRequestA(input), { onFailure: (error) => error.message, onSuccess: () => "decoded" })

describe("variant A decoding", () => {
  it("accepts the core field list and ignores client-sent internal fields", () => {
    const request = decode({ purchaseDate: "2025-03-10", items: [{ ...baseItem, route: "R-HACK", pickingDate: "2020-01-01" }] })
    expect(request.items[0]).toEqual(baseItem)
  })

  it("names the field and the problem in one line", () => {
    expect(badRequest({ purchaseDate: "2025-02-30", items: [baseItem] }))
      .toBe("purchaseDate: expected a real date YYYY-MM-DD")
    expect(badRequest({ purchaseDate: "2025-03-10", items: [] })).toBe("items: must not be empty")
    const { origin: _origin, ...withoutOrigin } = baseItem
    expect(badRequest({ purchaseDate: "2025-03-10", items: [baseItem, { ...withoutOrigin, dispatchType: "SLOW" }] }))
      .toBe("items[1].origin: is required; items[1].dispatchType: Expected \"NORMAL\" | \"EXPRESS\", actual \"SLOW\"")
    expect(badRequest({ items: [baseItem] })).toBe("purchaseDate: is required")
  })
})

describe("variant A evaluation", () => {
  const monday = limaTime("2025-03-10", "09:00")

  it("answers 404 when no dispatch has a route", () => {
    const result = evaluateVariantA(snapshotOf(), decode({ purchaseDate: "2025-03-10", items: [{ ...baseItem, destination: "150999" }] }), monday)
    expect(Result.isFailure(result) && result.failure.message)
      .toBe("no route found for any dispatch: no zone serves zone \"\" / ubigeo \"150999\"")
  })

  it("answers the routed items and explains the unrouted ones", () => {
    const results = Result.getOrThrow(evaluateVariantA(
      snapshotOf(),
      decode({ purchaseDate: "2025-03-10", items: [baseItem, { ...baseItem, dispatchType: "EXPRESS", destination: "150103" }] }),
      monday
    ))
    expect(results.map((result) => [result.message, result.pickingDate, result.deliveryDates.length])).toEqual([
      ["OK", "2025-03-10", 5],
      ["no EXPRESS HOME_DELIVERY route from CD1 to Z2", null, 0]
    ])
  })

  it("reports stock and capacity errors with available, used and total", () => {
    const results = Result.getOrThrow(evaluateVariantA(
      snapshotOf(),
      decode({ purchaseDate: "2025-03-10", items: [
        { ...baseItem, skuCode: "SKU-B", quantity: 4 },
        { ...baseItem, quantity: 11, destination: "150103" }
      ] }),
      monday
    ))
    expect(results[0]?.detailedCapacityError).toEqual([{
      code: "STOCK_ERROR",
      details: [{
        errorCode: "SOLD_OUT_QUANTITY",
        description: "stock of SKU-B at CD1: requested 4, available 3",
        sku: "SKU-B",
        requestedQuantity: 4,
        availableQuantity: 3
      }],
      providerDetails: { providerCode: "CD1", availableCapacity: 3, usedCapacity: 0, totalCapacity: 3, date: "2025-03-10" }
    }])
    expect(results[1]?.detailedCapacityError).toEqual([{
      code: "CAPACITY_ERROR",
      details: [{
        errorCode: "PICKING_CAPACITY_EXCEEDED",
        description: "11 units exceed the daily picking capacity of CD1 (10)",
        sku: "SKU-A",
        requestedQuantity: 11,
        availableQuantity: 10
      }],
      providerDetails: { providerCode: "CD1", availableCapacity: 10, usedCapacity: 0, totalCapacity: 10, date: "2025-03-10" }
    }])
    expect(results[1]?.deliveryDates).toEqual([])
    expect(results[1]?.arriveDates).toEqual([{
      node: "CD1", nodePurchaseOrder: null, edgeId: null, arriveDate: null, code: 1,
      message: "11 units exceed the daily picking capacity of CD1 (10)"
    }])
  })

  it("answers a 5-item request on the Lima demo network", () => {
    const snapshot = buildSnapshot(Result.getOrThrow(decodeNetwork(demoNetwork)), emptyLedger)
    const item = (origin: string, entityType: string, skuCode: string, destination: string, extra: object = {}) =>
      ({ ...baseItem, origin, entityType, skuCode, destination, weight: 2, ...extra })
    const request = decode({
      purchaseDate: "2026-11-23",
      items: [
        item("CD-LURIN", "CD", "SKU-TV-55-4K", "150122"),
        item("CD-LURIN", "CD", "SKU-LAPTOP-14", "150122"),
        item("CD-LURIN", "CD", "SKU-LAPTOP-14", "150103"),
        item("PRV-GLORIA", "PRV", "SKU-YOGURT-1L", "150103"),
        item("CD-CALLAO", "CD", "SKU-CELULAR-A54", "TD-SURCO", { deliveryMode: "STORE_WITHDRAWAL", zone: "LIMA-SUR" })
      ]
    })
    // Monday 23 November 2026, 10:00 in Lima.
    const results = Result.getOrThrow(evaluateVariantA(snapshot, request, limaTime("2026-11-23", "10:00")))
    expect(results.map((result) => [result.dispatchCode, result.route, result.pickingDate, result.deliveryDates[0], result.message]))
      .toEqual([
        ["CD-LURIN-LIMA-MODERNA-NH", "R-LURIN-SUR-N", "2026-11-23", "2026-11-24", "OK"],
        ["CD-LURIN-LIMA-MODERNA-NH", "R-LURIN-SUR-N", "2026-11-23", "2026-11-24", "OK"],
        ["CD-LURIN-LIMA-ESTE-NH", "R-LURIN-HUB>R-HUB-ESTE", "2026-11-23", "2026-11-24", "OK"],
        // Gloria picks Monday, processes one day, and its trunk leaves on Wednesday.
        ["PRV-GLORIA-LIMA-ESTE-NH", "R-GLORIA-LURIN>R-LURIN-HUB>R-HUB-ESTE", "2026-11-23", "2026-11-27", "OK"],
        // The hub serves stores on Monday, Wednesday and Friday.
        ["CD-CALLAO-TD-SURCO-NS", "R-CALLAO-HUB>R-HUB-TD-SURCO", "2026-11-23", "2026-11-26", "OK"]
      ])
    expect(results.every((result) => result.deliveryDates.length === 5)).toBe(true)
    expect(results[3]?.arriveDates.map((arrive) => [arrive.node, arrive.nodePurchaseOrder, arrive.arriveDate])).toEqual([
      ["PRV-GLORIA", "PRV-GLORIA", "2026-11-23"],
      ["CD-LURIN", null, "2026-11-26"],
      ["HUB-SANTA-ANITA", null, "2026-11-27"],
      ["LIMA-ESTE", null, "2026-11-27"]
    ])
  })
})
