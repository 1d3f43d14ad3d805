import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { buildSnapshot, decodeNetwork, demoNetwork, emptyLedger } from "@retail/capacity"
import {
  decodeDeliveryRequestB,
  type DeliveryRequestB,
  type DeliveryResponseB,
  evaluateVariantB,
  unitWeightKg
} from "../src/index.ts"

const demo = buildSnapshot(Result.getOrThrow(decodeNetwork(demoNetwork)), emptyLedger)
/** Friday 26 February 2027, 10:00 in Lima: every date below is in the future. */
const now = Date.parse("2027-02-26T10:00:00-05:00")

/** A customer on Av. Larco, Miraflores: TD-MIRAFLORES ~0.6 km, TD-SAN-ISIDRO ~2.8 km, TD-SURCO ~4.3 km. */
const base = {
  purchaseDate: "2027-03-01",
  saleChannel: "WEB",
  deliveryData: { latitude: -12.1219, longitude: -77.0297, ubigeoCode: "150122", destination: "Av. Larco 345" }
}
const tv = { skuCode: "SKU-TV-55-4K", origin: "CD-LURIN", quantity: 1, weight: 20 }

const decode = (input: unknown): DeliveryRequestB => Result.getOrThrow(decodeDeliveryRequestB(input))
const rejection = (input: unknown) =>
  Result.match(decodeDeliveryRequestB(input), { onFailure: (error) => [error.code, error.message], onSuccess: () => ["decoded"] })
const answer = (input: unknown): DeliveryResponseB => Result.getOrThrow(evaluateVariantB(demo, decode(input), now))
const summary = (response: DeliveryResponseB) =>
  response.logisticsCapacity.map((entry) => [entry.dispatchMode, entry.origin, entry.destination, entry.message])

describe("variant B decoding", () => {
  it("accepts every field of the spec and drops unknown ones", () => {
    const full = {
      ...base,
      isLastRoute: false,
      dispatchType: "NORMAL",
      dispatchMode: "ALL_DISPATCH_MODES",
      entitySale: "E01",
      hasFreightAttributeConfiguration: true,
      calculationOptions: {
        calculate: "SEARCH_ORIGINS_BY_COORDINATES", rangeStart: "2027-03-01", rangeEnd: "2027-03-20",
        optimization: "PROXIMITY_STORE", maxOrigins: 2, maxItemsPerOrigin: 5, maxDistancePickingStore: 12.5,
        maxPickupPoint: null, validateStock: true, dispatchCostEnabled: false, pickupCompanyCode: "PC1",
        useExternalPickupCompanyCode: false, useExternalDeliveryCompanyCode: false
      },
      deliveryData: { ...base.deliveryData, zone: "LIMA-MODERNA" },
      items: [{
        skuCode: "SKU-A", origin: "", companyCode: "C1", line: "TV", presentationCode: "P", division: "D", measurable: "UN",
        routePriority: 1, units: 2, quantity: 2, weight: 1.5, height: 10, width: 20, length: 30, volume: 6000,
        attributes: [{ attribute: "color", attributeValue: "black", attributeCode: "COL" }]
      }]
    }
    expect(decode({ ...full, route: "R-HACK", nodes: ["X"] })).toEqual(full)
  })

  it("names every bad field, and the allowed values of calculate and optimization", () => {
    expect(rejection({ ...base, purchaseDate: "2027-02-30", items: [] })).toEqual([
      "INVALID_REQUEST",
      "purchaseDate: expected a real date YYYY-MM-DD; items: must not be empty"
    ])
    expect(rejection({ ...base, calculationOptions: { calculate: "NEAREST", optimization: "CHEAPEST" }, items: [tv] })).toEqual([
      "INVALID_REQUEST",
      "calculationOptions.calculate: Expected \"SEARCH_ORIGINS_BY_COORDINATES\", actual \"NEAREST\"; " +
      "calculationOptions.optimization: Expected \"PROXIMITY_STORE\", actual \"CHEAPEST\""
    ])
    const { saleChannel: _saleChannel, ...withoutChannel } = base
    expect(rejection({ ...withoutChannel, dispatchMode: "DRONE", deliveryData: { latitude: 91, longitude: 0 }, items: [{ ...tv, quantity: 0 }] }))
      .toEqual([
        "INVALID_REQUEST",
        "dispatchMode: Expected \"HOME_DELIVERY\" | \"STORE_WITHDRAWAL\" | \"ALL_DISPATCH_MODES\", actual \"DRONE\"; saleChannel: is required; " +
        "deliveryData.latitude: must be between -90 and 90; items[0].quantity: must be greater than 0"
      ])
  })

  it("checks the rules across fields after the structure", () => {
    expect(decode({ ...base, items: [tv, { skuCode: "SKU-B", quantity: 1 }] }).items[1]!.origin).toBeUndefined()
    expect(rejection({ ...base, calculationOptions: { rangeStart: "2027-03-10", rangeEnd: "2027-03-09" }, items: [tv] })).toEqual([
      "BUSINESS_RULE_VIOLATION",
      "calculationOptions.rangeEnd: must not be before rangeStart (2027-03-10)"
    ])
  })

  it("weighs freight by the larger of real and volumetric weight (cm³ / 5000) only when configured", () => {
    const item = decode({ ...base, items: [{ ...tv, weight: 2, height: 50, width: 40, length: 30 }] }).items[0]!
    expect(unitWeightKg(item, false)).toBe(2)
    expect(unitWeightKg(item, true)).toBe(12)
    expect(unitWeightKg({ ...item, volume: 5000 }, true)).toBe(2)
  })
})

describe("variant B evaluation on the demo network", () => {
  it("home delivery: one entry per dispatch, echo, entity details, dates per window, trace and arrivals", () => {
    const response = answer({ ...base, items: [tv, { ...tv, skuCode: "SKU-LAPTOP-14", weight: 2 }] })
    // The echo is the request read, with every default the service applied.
    expect(response.request).toEqual({
      ...decode({ ...base, items: [{ ...tv, units: 1 }, { ...tv, skuCode: "SKU-LAPTOP-14", weight: 2, units: 1 }] }),
      dispatchType: "NORMAL",
      dispatchMode: "HOME_DELIVERY",
      hasFreightAttributeConfiguration: false,
      calculationOptions: { optimization: "PROXIMITY_STORE", maxPickupPoint: 3, validateStock: true, dispatchCostEnabled: true }
    })
    expect(response.prioritizationCriteria).toBe("EARLIEST_DELIVERY_DATE")
    expect(response.logisticsCapacity).toHaveLength(1)
    const entry = response.logisticsCapacity[0]!
    expect(entry).toMatchObject({
      origin: "CD-LURIN",
      destination: "Av. Larco 345",
      zone: "LIMA-MODERNA",
      route: "R-LURIN-SUR-N",
      pickingDate: "2027-03-01",
      message: "OK",
      dispatchType: "NORMAL",
      dispatchMode: "HOME_DELIVERY",
      deliveryCost: 20.9, // 9.9 + 0.5 × 22 kg
      processingDays: 0,
      leadTimes: [1],
      detailedCapacityError: []
    })
    expect(entry.originEntityDetails).toMatchObject({
      entityType: "CD", entityCode: "CD-LURIN", shortName: "CD Lurín", platformWarehouseId: "WH-LURIN",
      platformDockId: "DOCK-LURIN-01", contactNumber: "+51 1 611 2000",
      addressInfo: { district: "Lurín", ubigeoCode: "150119", latitude: -12.2747, longitude: -76.8705 }
    })
    expect(entry.pickupEntityDetails).toBeNull()
    const week = ["2027-03-02", "2027-03-03", "2027-03-04", "2027-03-05", "2027-03-06"]
    expect(entry.deliveryDates).toEqual([week, week])
    expect(entry.deliveryTrace.map((trace) => trace.deliveryDate)).toEqual(week)
    expect(entry.deliveryTrace[0]).toMatchObject({
      shippingEstimate: null,
      details: [{ sourceNode: "CD-LURIN", targetNode: "LIMA-MODERNA", route: "R-LURIN-SUR-N", dispatchUnits: 2, dispatchDate: "2027-03-01", departureDate: "2027-03-01", receptionDate: "2027-03-02" }]
    })
    expect(entry.arriveDates).toEqual([{ node: "CD-LURIN", arriveDate: "2027-03-01" }, { node: "LIMA-MODERNA", arriveDate: "2027-03-02" }])
    expect(entry.dispatchItems.map((item) => [item.skuCode, item.origin])).toEqual([["SKU-TV-55-4K", "CD-LURIN"], ["SKU-LAPTOP-14", "CD-LURIN"]])
  })

  it("dispatchCostEnabled false gives cost 0; freight configuration prices by volumetric weight", () => {
    expect(answer({ ...base, calculationOptions: { dispatchCostEnabled: false }, items: [tv] }).logisticsCapacity[0]!.deliveryCost).toBe(0)
    const bulky = { ...tv, weight: 1, height: 100, width: 50, length: 50 } // 50 kg volumetric
    expect(answer({ ...base, items: [bulky] }).logisticsCapacity[0]!.deliveryCost).toBe(10.4)
    expect(answer({ ...base, hasFreightAttributeConfiguration: true, items: [bulky] }).logisticsCapacity[0]!.deliveryCost).toBe(34.9)
  })

  it("store withdrawal: the maxPickupPoint stores nearest the customer, with their details", () => {
    const response = answer({ ...base, dispatchMode: "STORE_WITHDRAWAL", calculationOptions: { maxPickupPoint: 2 }, items: [tv] })
    expect(response.prioritizationCriteria).toBe("PROXIMITY_STORE")
    expect(summary(response)).toEqual([
      ["STORE_WITHDRAWAL", "CD-LURIN", "TD-MIRAFLORES", "OK"],
      ["STORE_WITHDRAWAL", "CD-LURIN", "TD-SAN-ISIDRO", "OK"]
    ])
    const entry = response.logisticsCapacity[0]!
    expect(entry.route).toBe("R-LURIN-HUB>R-HUB-TD-MIRAFLORES")
    expect(entry.deliveryDates).toEqual([["2027-03-04", "2027-03-05", "2027-03-06", "2027-03-07", "2027-03-08"]])
    expect(entry.pickupEntityDetails).toMatchObject({ entityType: "TD", entityCode: "TD-MIRAFLORES", pickupPointId: "PP-TD-MIRAFLORES", deliveryTime: "10:00-21:00" })
    expect(entry.deliveryTrace[0]!.deliveryWindows).toEqual([])
  })

  it("both modes: home delivery first, then the pickup stores (default 3)", () => {
    expect(summary(answer({ ...base, dispatchMode: "ALL_DISPATCH_MODES", items: [tv] })).map(([mode, , destination]) => [mode, destination])).toEqual([
      ["HOME_DELIVERY", "Av. Larco 345"],
      ["STORE_WITHDRAWAL", "TD-MIRAFLORES"],
      ["STORE_WITHDRAWAL", "TD-SAN-ISIDRO"],
      ["STORE_WITHDRAWAL", "TD-SAN-BORJA"]
    ])
  })

  it("origin search: nearest store with the stock and a route; never beyond maxDistancePickingStore", () => {
    const search = { calculate: "SEARCH_ORIGINS_BY_COORDINATES", optimization: "PROXIMITY_STORE" }
    const watch = (quantity: number) => ({ skuCode: "SKU-SMARTWATCH-GT", quantity })
    // TD-MIRAFLORES holds 3: 2 fit there; 5 go to TD-SURCO (20), the next store with an EXPRESS route.
    expect(summary(answer({ ...base, dispatchType: "EXPRESS", calculationOptions: search, items: [watch(2), watch(5)] })).map(([, origin]) => origin))
      .toEqual(["TD-MIRAFLORES", "TD-SURCO"])
    const bounded = answer({ ...base, dispatchType: "EXPRESS", calculationOptions: { ...search, maxDistancePickingStore: 3 }, items: [watch(5)] })
    expect(summary(bounded)).toEqual([["HOME_DELIVERY", null, "Av. Larco 345", "no origin within 3 km can serve 1 item(s)"]])
    expect(bounded.logisticsCapacity[0]!.detailedCapacityError[0]).toMatchObject({
      code: "STOCK_ERROR",
      details: [{ errorCode: "SOLD_OUT_QUANTITY", sku: "SKU-SMARTWATCH-GT", requestedQuantity: 5, availableQuantity: 3 }],
      providerDetails: { detailStock: [{ sku: "SKU-SMARTWATCH-GT", requestedQuantity: 5, availableQuantity: 3 }] }
    })
    // NORMAL home delivery: stores have no NORMAL route; CD Callao (~13 km) is nearer than CD Lurín (~24 km).
    expect(answer({ ...base, calculationOptions: search, items: [{ skuCode: "SKU-TV-55-4K", quantity: 1 }] }).logisticsCapacity[0]!.origin)
      .toBe("CD-CALLAO")
  })

  it("origin search with store withdrawal: a store with the stock serves itself, others are supplied from a CD", () => {
    const response = answer({
      ...base,
      dispatchMode: "STORE_WITHDRAWAL",
      calculationOptions: { calculate: "SEARCH_ORIGINS_BY_COORDINATES" },
      items: [{ skuCode: "SKU-SMARTWATCH-GT", quantity: 2 }]
    })
    expect(summary(response).map(([, origin, store]) => [origin, store])).toEqual([
      ["TD-MIRAFLORES", "TD-MIRAFLORES"],
      ["CD-LURIN", "TD-SAN-ISIDRO"],
      ["TD-SAN-BORJA", "TD-SAN-BORJA"]
    ])
    expect(response.logisticsCapacity[0]!.route).toBeNull()
    expect(response.logisticsCapacity[0]!.deliveryDates[0]![0]).toBe("2027-03-01")
    // Within 1 km only TD-MIRAFLORES holds the SKU: stores only reachable from farther origins are not offered.
    const near = answer({
      ...base,
      dispatchMode: "STORE_WITHDRAWAL",
      calculationOptions: { calculate: "SEARCH_ORIGINS_BY_COORDINATES", maxDistancePickingStore: 1 },
      items: [{ skuCode: "SKU-SMARTWATCH-GT", quantity: 2 }]
    })
    expect(summary(near).map(([, origin, store]) => [origin, store])).toEqual([["TD-MIRAFLORES", "TD-MIRAFLORES"]])
  })

  it("a sold-out item gets STOCK_ERROR / SOLD_OUT_QUANTITY unless validateStock is off", () => {
    const soldOut = { skuCode: "SKU-SMARTWATCH-GT", origin: "TD-MIRAFLORES", quantity: 4 }
    const entry = answer({ ...base, dispatchType: "EXPRESS", items: [soldOut] }).logisticsCapacity[0]!
    expect(entry).toMatchObject({ origin: "TD-MIRAFLORES", pickingDate: null, deliveryCost: null, deliveryDates: [], dispatchItems: [] })
    expect(entry.detailedCapacityError).toEqual([{
      code: "STOCK_ERROR",
      details: [{ errorCode: "SOLD_OUT_QUANTITY", description: "stock of SKU-SMARTWATCH-GT at TD-MIRAFLORES: requested 4, available 3", sku: "SKU-SMARTWATCH-GT", requestedQuantity: 4, availableQuantity: 3 }],
      providerDetails: {
        code: "TD-MIRAFLORES",
        message: "stock is short at TD-MIRAFLORES for 1 item(s)",
        detail: "stock of SKU-SMARTWATCH-GT at TD-MIRAFLORES: requested 4, available 3",
        detailCapacity: [],
        detailStock: [{ sku: "SKU-SMARTWATCH-GT", warningMessage: "stock of SKU-SMARTWATCH-GT at TD-MIRAFLORES: requested 4, available 3", requestedQuantity: 4, availableQuantity: 3 }]
      }
    }])
    const unchecked = answer({ ...base, dispatchType: "EXPRESS", calculationOptions: { validateStock: false }, items: [soldOut] })
    expect(unchecked.logisticsCapacity[0]!.message).toBe("OK")
  })

  it("rangeStart and rangeEnd bound the delivery dates", () => {
    const entry = answer({ ...base, calculationOptions: { rangeStart: "2027-03-04", rangeEnd: "2027-03-05" }, items: [tv] }).logisticsCapacity[0]!
    expect(entry.deliveryDates).toEqual([["2027-03-04", "2027-03-05"], ["2027-03-04", "2027-03-05"]])
  })

  it("404 when no dispatch has a route", () => {
    const result = evaluateVariantB(demo, decode({ ...base, items: [{ ...tv, origin: "CD-NOWHERE" }] }), now)
    expect(Result.isFailure(result) && result.failure.message).toBe("no route found for any dispatch: origin \"CD-NOWHERE\" is not a node of the network")
    const express = evaluateVariantB(demo, decode({ ...base, dispatchType: "EXPRESS", dispatchMode: "STORE_WITHDRAWAL", items: [tv] }), now)
    expect(Result.isFailure(express) && express.failure.message).toBe("no route found for any dispatch: no pickup store is reachable by EXPRESS routes")
    // Searched items with nowhere to deliver are not a stock answer.
    const nowhere = evaluateVariantB(demo, decode({
      ...base,
      deliveryData: { latitude: -12.12, longitude: -77.03, ubigeoCode: "999999" },
      calculationOptions: { calculate: "SEARCH_ORIGINS_BY_COORDINATES" },
      items: [{ skuCode: "SKU-TV-55-4K", quantity: 1 }]
    }), now)
    expect(Result.isFailure(nowhere) && nowhere.failure.message)
      .toBe("no route found for any dispatch: no zone serves deliveryData zone \"\" / ubigeoCode \"999999\"")
  })
})
