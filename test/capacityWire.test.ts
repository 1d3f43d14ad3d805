import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { postJson } from "./support/Http.ts"
import { variantAItem } from "./support/CapacityBodies.ts"
import { DemoNetworkCurrent } from "./support/DemoNetwork.ts"
import { TestServer } from "./support/TestServer.ts"

// Issue 23, what a client sees on POST /v1/delivery/capacity: no placeholders, defaults echoed,
// origins chosen when none is sent. Variant B's error body for every error of a variant B body:
// test/capacityAnswers.test.ts, on both adapters.

const KEY = "test-capacity-wire-key"

const capacity = (body: unknown, key: string = KEY) => postJson("/v1/delivery/capacity", body, key)

const base = {
  purchaseDate: "2027-03-01",
  saleChannel: "WEB",
  deliveryData: { latitude: -12.1219, longitude: -77.0297, ubigeoCode: "150122", destination: "Av. Larco 345" }
}
const tv = { skuCode: "SKU-TV-55-4K", origin: "CD-LURIN", quantity: 1, weight: 20 }
const watch = (quantity: number) => ({ skuCode: "SKU-SMARTWATCH-GT", quantity, weight: 0.2 })
const itemA = (overrides: Record<string, unknown> = {}) => variantAItem({ zone: "LIMA-MODERNA", ...overrides })

type Json = Record<string, unknown>
const ok = (body: unknown) =>
  Effect.map(capacity(body), (response) => {
    expect(response.status, response.text).toBe(200)
    return response.json()
  })

describe("delivery capacity on the wire", () => {
  layer(DemoNetworkCurrent(KEY).pipe(Layer.provideMerge(TestServer({ CAPACITY_API_KEYS: KEY }))), {
    timeout: 120_000,
    excludeTestServices: true
  })((it) => {
    it.effect("variant B without calculationOptions and without origins is served: the nearest stock-holding nodes are chosen", () =>
      Effect.gen(function*() {
        const answer = (yield* ok({ ...base, dispatchType: "EXPRESS", items: [watch(2), watch(5)] })) as {
          request: { calculationOptions: Json }
          logisticsCapacity: ReadonlyArray<{ origin: string; message: string; dispatchItems: ReadonlyArray<Json> }>
          prioritizationCriteria: string
        }
        // TD-MIRAFLORES (0.6 km) holds 3, TD-SURCO (4.3 km) 20.
        expect(answer.logisticsCapacity.map((entry) => [entry.origin, entry.message])).toEqual([["TD-MIRAFLORES", "OK"], ["TD-SURCO", "OK"]])
        expect(answer.prioritizationCriteria).toBe("PROXIMITY_STORE")
        expect(answer.request.calculationOptions).toMatchObject({ calculate: "SEARCH_ORIGINS_BY_COORDINATES" })
      }))

    it.effect("variant B: the echo and dispatchItems carry the defaults applied; home delivery has no pickup entity; an unplaced item has null origin, route and dates", () =>
      Effect.gen(function*() {
        const home = (yield* ok({ ...base, items: [tv] })) as {
          request: Json
          logisticsCapacity: ReadonlyArray<Json & { dispatchItems: ReadonlyArray<Json> }>
        }
        expect(home.request).toEqual({
          ...base,
          dispatchType: "NORMAL",
          dispatchMode: "HOME_DELIVERY",
          hasFreightAttributeConfiguration: false,
          calculationOptions: { optimization: "PROXIMITY_STORE", maxPickupPoint: 3, validateStock: true, dispatchCostEnabled: true },
          items: [{ ...tv, units: 1 }]
        })
        const [entry] = home.logisticsCapacity
        expect(entry!.pickupEntityDetails).toBeNull()
        expect(entry!.dispatchItems).toEqual([{ ...tv, units: 1 }])

        const far = (yield* ok({ ...base, dispatchType: "EXPRESS", calculationOptions: { maxDistancePickingStore: 3 }, items: [watch(5)] })) as {
          logisticsCapacity: ReadonlyArray<Json & { detailedCapacityError: ReadonlyArray<{ providerDetails: Json }> }>
        }
        const [unplaced] = far.logisticsCapacity
        expect(unplaced).toMatchObject({
          origin: null,
          route: null,
          pickingDate: null,
          deliveryCost: null,
          processingDays: null,
          originEntityDetails: null,
          pickupEntityDetails: null,
          deliveryDates: []
        })
        expect(unplaced!.detailedCapacityError[0]!.providerDetails.code).toBeNull()
      }))

    it.effect("variant A: an item without a route has no dispatchCode, route, picking date or cost (null), and no empty strings", () =>
      Effect.gen(function*() {
        const results = (yield* ok({ purchaseDate: "2027-03-01", items: [itemA(), itemA({ zone: "NOWHERE", destination: "150999" })] })) as ReadonlyArray<Json>
        expect(results[0]).toMatchObject({ dispatchCode: "CD-LURIN-LIMA-MODERNA-NH", message: "OK", line: null, measurable: null, division: null })
        expect(results[1]).toMatchObject({ dispatchCode: null, route: null, pickingDate: null, deliveryCost: null, deliveryDates: [] })
        const emptyStrings = JSON.stringify(results).match(/"[A-Za-z]+":""/g)
        expect(emptyStrings).toBeNull()
        // A line short of stock: what earlier lines took is the used part of the node's stock, not 0.
        const store = { origin: "TD-MIRAFLORES", entityType: "TD", skuCode: "SKU-SMARTWATCH-GT", dispatchType: "EXPRESS", quantity: 2 }
        const short = (yield* ok({ purchaseDate: "2027-03-01", items: [itemA(store), itemA(store)] })) as ReadonlyArray<{
          pickingDate: unknown
          detailedCapacityError: ReadonlyArray<{ providerDetails: Json }>
        }>
        expect(short[1]!.pickingDate).toBeNull()
        expect(short[1]!.detailedCapacityError[0]!.providerDetails)
          .toEqual({ providerCode: "TD-MIRAFLORES", availableCapacity: 1, usedCapacity: 2, totalCapacity: 3, date: "2027-03-01" })
      }))
  })
})
