import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { postJson } from "./support/Http.ts"
import { DemoNetworkCurrent } from "./support/DemoNetwork.ts"
import { TestServer } from "./support/TestServer.ts"

const KEY = "test-capacity-b-key"

const capacity = (body: unknown, key: string = KEY) => postJson("/v1/delivery/capacity", body, key)

/** A customer on Av. Larco, Miraflores: TD-MIRAFLORES ~0.6 km, TD-SAN-ISIDRO ~2.8 km, TD-SAN-BORJA ~4.2 km, TD-SURCO ~4.3 km. */
const base = {
  purchaseDate: "2027-03-01",
  saleChannel: "WEB",
  deliveryData: { latitude: -12.1219, longitude: -77.0297, ubigeoCode: "150122", destination: "Av. Larco 345" }
}
const tv = { skuCode: "SKU-TV-55-4K", origin: "CD-LURIN", quantity: 1, weight: 20, line: "TV", measurable: "UN" }
const watch = (quantity: number) => ({ skuCode: "SKU-SMARTWATCH-GT", quantity, weight: 0.2 })
const search = { calculate: "SEARCH_ORIGINS_BY_COORDINATES", optimization: "PROXIMITY_STORE" }

interface Entry {
  readonly origin: string | null
  readonly destination: string
  readonly zone: string
  readonly route: string
  readonly pickingDate: string
  readonly message: string
  readonly dispatchMode: string
  readonly deliveryCost: number
  readonly deliveryDates: ReadonlyArray<ReadonlyArray<string>>
  readonly originEntityDetails: { readonly entityCode: string; readonly addressInfo: { readonly latitude: number } }
  readonly pickupEntityDetails: { readonly entityCode: string; readonly pickupPointId: string | null } | null
  readonly deliveryTrace: ReadonlyArray<{ readonly deliveryDate: string; readonly shippingEstimate: null; readonly details: ReadonlyArray<unknown> }>
  readonly arriveDates: ReadonlyArray<{ readonly node: string; readonly arriveDate: string }>
  readonly detailedCapacityError: ReadonlyArray<{
    readonly code: string
    readonly details: ReadonlyArray<{ readonly errorCode: string; readonly requestedQuantity: number; readonly availableQuantity: number }>
  }>
  readonly dispatchItems: ReadonlyArray<{ readonly skuCode: string; readonly origin: string }>
}

interface ResponseB {
  readonly request: unknown
  readonly logisticsCapacity: ReadonlyArray<Entry>
  readonly prioritizationCriteria: string
}

const answerOf = (body: unknown) =>
  Effect.map(capacity(body), (response) => {
    expect(response.status, response.text).toBe(200)
    expect(response.headers.get("content-type")).toContain("application/json")
    return response.json() as ResponseB
  })

const errorOf = (body: unknown, status: number) =>
  Effect.map(capacity(body), (response) => {
    expect(response.status, response.text).toBe(status)
    expect(response.headers.get("content-type")).toContain("application/json")
    return response.json() as { code: string; message: string; details: { fields?: ReadonlyArray<{ field: string; message: string }> } }
  })

describe("delivery capacity, variant B", () => {
  layer(DemoNetworkCurrent(KEY).pipe(Layer.provideMerge(TestServer({ CAPACITY_API_KEYS: KEY }))), {
    timeout: 120_000,
    excludeTestServices: true
  })((it) => {
    it.effect("home delivery: the echo, one entry per dispatch, node details, dates per window, trace", () =>
      Effect.gen(function*() {
        const body = { ...base, items: [tv, { ...tv, skuCode: "SKU-LAPTOP-14", weight: 2, extra: "dropped" }] }
        const answer = yield* answerOf(body)
        expect(answer.request).toMatchObject({ ...base, items: [{ ...tv, units: 1 }, { ...tv, skuCode: "SKU-LAPTOP-14", weight: 2, units: 1 }] })
        expect(answer.prioritizationCriteria).toBe("EARLIEST_DELIVERY_DATE")
        expect(answer.logisticsCapacity).toHaveLength(1)
        const [entry] = answer.logisticsCapacity
        expect(entry).toMatchObject({
          origin: "CD-LURIN",
          destination: "Av. Larco 345",
          zone: "LIMA-MODERNA",
          route: "R-LURIN-SUR-N",
          pickingDate: "2027-03-01",
          message: "OK",
          dispatchMode: "HOME_DELIVERY",
          deliveryCost: 20.9,
          detailedCapacityError: []
        })
        expect(entry!.originEntityDetails.entityCode).toBe("CD-LURIN")
        expect(entry!.originEntityDetails.addressInfo.latitude).toBe(-12.2747)
        expect(entry!.pickupEntityDetails).toBeNull()
        const week = ["2027-03-02", "2027-03-03", "2027-03-04", "2027-03-05", "2027-03-06"]
        expect(entry!.deliveryDates).toEqual([week, week])
        expect(entry!.deliveryTrace.map((trace) => trace.deliveryDate)).toEqual(week)
        expect(entry!.deliveryTrace[0]!.shippingEstimate).toBeNull()
        expect(entry!.deliveryTrace[0]!.details).toHaveLength(1)
        expect(entry!.arriveDates).toEqual([{ node: "CD-LURIN", arriveDate: "2027-03-01" }, { node: "LIMA-MODERNA", arriveDate: "2027-03-02" }])
        expect(entry!.dispatchItems.map((item) => item.skuCode)).toEqual(["SKU-TV-55-4K", "SKU-LAPTOP-14"])
      }))

    it.effect("store withdrawal: the nearest pickup stores, bounded by maxPickupPoint, with their details", () =>
      Effect.gen(function*() {
        const answer = yield* answerOf({ ...base, dispatchMode: "STORE_WITHDRAWAL", calculationOptions: { maxPickupPoint: 2 }, items: [tv] })
        expect(answer.prioritizationCriteria).toBe("PROXIMITY_STORE")
        expect(answer.logisticsCapacity.map((entry) => [entry.dispatchMode, entry.destination, entry.pickupEntityDetails?.pickupPointId, entry.route]))
          .toEqual([
            ["STORE_WITHDRAWAL", "TD-MIRAFLORES", "PP-TD-MIRAFLORES", "R-LURIN-HUB>R-HUB-TD-MIRAFLORES"],
            ["STORE_WITHDRAWAL", "TD-SAN-ISIDRO", "PP-TD-SAN-ISIDRO", "R-LURIN-HUB>R-HUB-TD-SAN-ISIDRO"]
          ])
        // Lurín Mon 1 -> hub Tue 2 -> store departures MON/WED/FRI: Wed 3 -> Thu 4.
        expect(answer.logisticsCapacity[0]!.deliveryDates).toEqual([["2027-03-04", "2027-03-05", "2027-03-06", "2027-03-07", "2027-03-08"]])
      }))

    it.effect("both modes: home delivery, then three pickup stores", () =>
      Effect.gen(function*() {
        const answer = yield* answerOf({ ...base, dispatchMode: "ALL_DISPATCH_MODES", items: [tv] })
        expect(answer.logisticsCapacity.map((entry) => [entry.dispatchMode, entry.destination])).toEqual([
          ["HOME_DELIVERY", "Av. Larco 345"],
          ["STORE_WITHDRAWAL", "TD-MIRAFLORES"],
          ["STORE_WITHDRAWAL", "TD-SAN-ISIDRO"],
          ["STORE_WITHDRAWAL", "TD-SAN-BORJA"]
        ])
        expect(answer.logisticsCapacity.every((entry) => entry.message === "OK")).toBe(true)
      }))

    it.effect("origin search: the nearest store with the stock wins; a store beyond maxDistancePickingStore is never chosen", () =>
      Effect.gen(function*() {
        // TD-MIRAFLORES (0.6 km) holds 3, TD-SURCO (4.3 km) 20: 2 units come from Miraflores, 5 from Surco.
        const near = yield* answerOf({ ...base, dispatchType: "EXPRESS", calculationOptions: search, items: [watch(2), watch(5)] })
        expect(near.prioritizationCriteria).toBe("PROXIMITY_STORE")
        expect(near.logisticsCapacity.map((entry) => [entry.origin, entry.route, entry.dispatchItems.map((item) => item.origin)])).toEqual([
          ["TD-MIRAFLORES", "R-TD-MIRAFLORES-E", ["TD-MIRAFLORES"]],
          ["TD-SURCO", "R-TD-SURCO-E", ["TD-SURCO"]]
        ])
        const bounded = yield* answerOf({
          ...base,
          dispatchType: "EXPRESS",
          calculationOptions: { ...search, maxDistancePickingStore: 3 },
          items: [watch(5)]
        })
        expect(bounded.logisticsCapacity).toHaveLength(1)
        expect(bounded.logisticsCapacity[0]).toMatchObject({ origin: null, message: "no origin within 3 km can serve 1 item(s)", deliveryDates: [] })
        expect(bounded.logisticsCapacity[0]!.detailedCapacityError[0]).toMatchObject({
          code: "STOCK_ERROR",
          details: [{ errorCode: "SOLD_OUT_QUANTITY", requestedQuantity: 5, availableQuantity: 3 }]
        })
      }))

    it.effect("a sold-out item: STOCK_ERROR with SOLD_OUT_QUANTITY and the stock detail", () =>
      Effect.gen(function*() {
        const answer = yield* answerOf({
          ...base,
          dispatchType: "EXPRESS",
          items: [{ ...watch(4), origin: "TD-MIRAFLORES" }, { skuCode: "SKU-CELULAR-A54", origin: "TD-MIRAFLORES", quantity: 1 }]
        })
        const [entry] = answer.logisticsCapacity
        expect(entry!.message).toBe("OK")
        expect(entry!.dispatchItems.map((item) => item.skuCode)).toEqual(["SKU-CELULAR-A54"])
        expect(entry!.detailedCapacityError).toEqual([{
          code: "STOCK_ERROR",
          details: [{
            errorCode: "SOLD_OUT_QUANTITY",
            description: "stock of SKU-SMARTWATCH-GT at TD-MIRAFLORES: requested 4, available 3",
            sku: "SKU-SMARTWATCH-GT",
            requestedQuantity: 4,
            availableQuantity: 3
          }],
          providerDetails: {
            code: "TD-MIRAFLORES",
            message: "stock is short at TD-MIRAFLORES for 1 item(s)",
            detail: "stock of SKU-SMARTWATCH-GT at TD-MIRAFLORES: requested 4, available 3",
            detailCapacity: [],
            detailStock: [{
              sku: "SKU-SMARTWATCH-GT",
              warningMessage: "stock of SKU-SMARTWATCH-GT at TD-MIRAFLORES: requested 4, available 3",
              requestedQuantity: 4,
              availableQuantity: 3
            }]
          }
        }])
      }))

    it.effect("rangeStart and rangeEnd bound the delivery dates", () =>
      Effect.gen(function*() {
        const answer = yield* answerOf({ ...base, calculationOptions: { rangeStart: "2027-03-04", rangeEnd: "2027-03-05" }, items: [tv] })
        expect(answer.logisticsCapacity[0]!.deliveryDates).toEqual([["2027-03-04", "2027-03-05"], ["2027-03-04", "2027-03-05"]])
        expect(answer.logisticsCapacity[0]!.deliveryTrace.map((trace) => trace.deliveryDate)).toEqual(["2027-03-04", "2027-03-05"])
      }))

    it.effect("400 INVALID_REQUEST names every bad field, and the allowed calculate and optimization values", () =>
      Effect.gen(function*() {
        const fields = (error: { details: { fields?: ReadonlyArray<{ field: string }> } }) => error.details.fields?.map((field) => field.field)
        const badDate = yield* errorOf({ ...base, purchaseDate: "2027-02-30", items: [tv] }, 400)
        expect(badDate.code).toBe("INVALID_REQUEST")
        expect(fields(badDate)).toEqual(["purchaseDate"])
        const { saleChannel: _saleChannel, ...noChannel } = base
        const missing = yield* errorOf({ ...noChannel, items: [] }, 400)
        expect(missing.code).toBe("INVALID_REQUEST")
        expect(missing.message).toBe("saleChannel: is required; items: must not be empty")
        const kinds = yield* errorOf({ ...base, dispatchType: "SLOW", dispatchMode: "DRONE", items: [tv] }, 400)
        expect(fields(kinds)).toEqual(["dispatchType", "dispatchMode"])
        const calculate = yield* errorOf({ ...base, calculationOptions: { calculate: "NEAREST" }, items: [tv] }, 400)
        expect(calculate.code).toBe("INVALID_REQUEST")
        expect(calculate.message).toContain("calculationOptions.calculate: Expected \"SEARCH_ORIGINS_BY_COORDINATES\", actual \"NEAREST\"")
        const optimization = yield* errorOf({ ...base, calculationOptions: { optimization: "CHEAPEST" }, items: [tv] }, 400)
        expect(optimization.message).toContain("calculationOptions.optimization: Expected \"PROXIMITY_STORE\", actual \"CHEAPEST\"")
        const place = yield* errorOf({ ...base, deliveryData: { latitude: -200, longitude: "x" }, items: [tv] }, 400)
        expect(fields(place)).toEqual(["deliveryData.latitude", "deliveryData.longitude"])
        const limits = yield* errorOf({ ...base, calculationOptions: { maxOrigins: 0, maxDistancePickingStore: -1, maxPickupPoint: 1.5 }, items: [tv] }, 400)
        expect(fields(limits)).toEqual(["calculationOptions.maxOrigins", "calculationOptions.maxDistancePickingStore", "calculationOptions.maxPickupPoint"])
      }))

    it.effect("400 BUSINESS_RULE_VIOLATION: a range that ends before it starts", () =>
      Effect.gen(function*() {
        const range = yield* errorOf({ ...base, calculationOptions: { rangeStart: "2027-03-10", rangeEnd: "2027-03-01" }, items: [tv] }, 400)
        expect(range.code).toBe("BUSINESS_RULE_VIOLATION")
        expect(range.details.fields?.[0]?.field).toBe("calculationOptions.rangeEnd")
      }))

    it.effect("404 NO_ROUTE_FOUND when no dispatch has a route", () =>
      Effect.gen(function*() {
        const unknown = yield* errorOf({ ...base, items: [{ ...tv, origin: "CD-NOWHERE" }] }, 404)
        expect(unknown.code).toBe("NO_ROUTE_FOUND")
        expect(unknown.message).toContain("CD-NOWHERE")
        const express = yield* errorOf({ ...base, dispatchType: "EXPRESS", dispatchMode: "STORE_WITHDRAWAL", items: [tv] }, 404)
        expect(express.message).toContain("no pickup store is reachable by EXPRESS routes")
      }))

    it.effect("401 in variant B's format for a variant B body; a body of neither variant is a plain 400", () =>
      Effect.gen(function*() {
        const noKey = yield* postJson("/v1/delivery/capacity", { ...base, items: [tv] })
        expect(noKey.status).toBe(401)
        expect(noKey.headers.get("content-type")).toContain("application/json")
        expect(noKey.json()).toMatchObject({ code: "UNAUTHORIZED" })
        expect((yield* capacity({ ...base, items: [tv] }, "not-a-key")).status).toBe(401)
        for (const body of [{ purchaseDate: "2027-03-01", items: [{ skuCode: "X" }] }, [1, 2], "text", null]) {
          const neither = yield* capacity(body)
          expect(neither.status).toBe(400)
          expect(neither.headers.get("content-type")).toContain("text/plain")
          expect(neither.text).toContain("matches neither variant")
        }
      }))
  })
})
