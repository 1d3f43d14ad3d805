import { describe, expect, it } from "vitest"
import { evaluate, formatDay, type CapacityUse } from "../src/index.ts"
import { item, ledgerWith, limaTime, request, snapshotOf, smallNetwork } from "./fixtures.ts"

const MONDAY_9AM = limaTime("2025-03-10", "09:00")
const use = (resource: CapacityUse["resource"], date: string, amount: number): CapacityUse => ({ resource, date, amount })
const picking = (date: string, amount: number) => use({ _tag: "Picking", node: "CD1", pool: "ALL" }, date, amount)
const window = (code: string, date: string, amount: number) =>
  use({ _tag: "ZoneWindow", zone: "Z1", window: code }, date, amount)

describe("capacity rollover", () => {
  it("rolls picking over to the next day when the day is full", () => {
    const snapshot = snapshotOf(smallNetwork, ledgerWith([picking("2025-03-10", 8)]))
    const fits = evaluate(snapshot, request("2025-03-10", [item({ units: 2 })]), MONDAY_9AM).dispatches[0]
    expect(fits?.pickingDate === undefined ? "" : formatDay(fits.pickingDate)).toBe("2025-03-10")
    expect(fits?.usedPickingCapacity).toBe(8)

    const rolled = evaluate(snapshot, request("2025-03-10", [item({ units: 3 })]), MONDAY_9AM).dispatches[0]
    expect(rolled?.status).toBe("PLANNED")
    expect(rolled?.pickingDate === undefined ? "" : formatDay(rolled.pickingDate)).toBe("2025-03-11")
    expect(rolled?.usedPickingCapacity).toBe(0)
    expect(rolled?.legs.map((leg) => formatDay(leg.departureDate))).toEqual(["2025-03-11"])
    expect(rolled?.shortage).toBeUndefined()
  })

  it("rolls a departure over when the route is full that day", () => {
    const snapshot = snapshotOf(smallNetwork, ledgerWith([use({ _tag: "RouteDeparture", route: "R1" }, "2025-03-10", 50)]))
    const dispatch = evaluate(snapshot, request("2025-03-10", [item()]), MONDAY_9AM).dispatches[0]
    expect(dispatch?.legs.map((leg) => [formatDay(leg.dispatchDate), formatDay(leg.departureDate), leg.usedRouteCapacity]))
      .toEqual([["2025-03-10", "2025-03-11", 0]])
    expect(dispatch?.deliveries[0]?.date === undefined ? "" : formatDay(dispatch.deliveries[0].date)).toBe("2025-03-12")
  })

  it("skips a delivery day whose windows are all full and flags a full window as blocked", () => {
    const snapshot = snapshotOf(
      smallNetwork,
      ledgerWith([window("AM", "2025-03-11", 2), window("PM", "2025-03-11", 2), window("AM", "2025-03-12", 2)])
    )
    const dispatch = evaluate(snapshot, request("2025-03-10", [item()]), MONDAY_9AM).dispatches[0]
    expect(dispatch?.deliveries.map((option) => formatDay(option.date)))
      .toEqual(["2025-03-12", "2025-03-13", "2025-03-14", "2025-03-15", "2025-03-17"])
    expect(dispatch?.deliveries[0]?.windows.map((slot) => [slot.window.code, slot.used, slot.blocked]))
      .toEqual([["AM", 2, true], ["PM", 0, false]])
    expect(dispatch?.deliveries[1]?.windows.map((slot) => slot.blocked)).toEqual([false, false])
  })

  it("refuses a dispatch larger than any single day's picking capacity, without rollover", () => {
    const dispatch = evaluate(snapshotOf(), request("2025-03-10", [item({ units: 11 })]), MONDAY_9AM).dispatches[0]
    expect(dispatch?.status).toBe("NO_CAPACITY")
    expect(dispatch?.deliveries).toEqual([])
    expect(dispatch?.shortage).toEqual({
      kind: "PICKING_CAPACITY",
      provider: "CD1",
      date: dispatch?.shortage?.date,
      requested: 11,
      used: 0,
      total: 10,
      available: 10
    })
    expect(dispatch?.shortage?.date === undefined ? "" : formatDay(dispatch.shortage.date)).toBe("2025-03-10")
    expect(dispatch?.message).toBe("11 units exceed the daily picking capacity of CD1 (10)")
  })

  it("reports the first full day when capacity runs out within the horizon", () => {
    const snapshot = snapshotOf(
      smallNetwork,
      ledgerWith([picking("2025-03-10", 10), picking("2025-03-11", 9), picking("2025-03-12", 10)])
    )
    const options = { horizonDays: 2, deliveryDatesCount: 5 }
    const dispatch = evaluate(snapshot, request("2025-03-10", [item({ units: 2 })]), MONDAY_9AM, options).dispatches[0]
    expect(dispatch?.status).toBe("NO_CAPACITY")
    expect(dispatch?.shortage).toMatchObject({ kind: "PICKING_CAPACITY", used: 10, total: 10, available: 0, requested: 2 })
    expect(dispatch?.shortage?.date === undefined ? "" : formatDay(dispatch.shortage.date)).toBe("2025-03-10")
  })

  it("reports the zone when every window is full up to the horizon", () => {
    const full = ["2025-03-11", "2025-03-12", "2025-03-13"].flatMap((date) => [window("AM", date, 2), window("PM", date, 2)])
    const options = { horizonDays: 3, deliveryDatesCount: 5 }
    const dispatch = evaluate(snapshotOf(smallNetwork, ledgerWith(full)), request("2025-03-10", [item()]), MONDAY_9AM, options)
      .dispatches[0]
    expect(dispatch?.status).toBe("NO_CAPACITY")
    expect(dispatch?.shortage).toMatchObject({ kind: "ZONE_WINDOW_CAPACITY", provider: "Z1", used: 4, total: 4, available: 0 })
    expect(dispatch?.legs).toHaveLength(1)
  })
})

describe("multi-leg route through a hub", () => {
  it("plans both legs, waiting for the trunk's departure day, and adds both costs", () => {
    const dispatch = evaluate(
      snapshotOf(),
      request("2025-03-11", [item({ zone: undefined, ubigeo: "150103", weightKg: 2 })]),
      limaTime("2025-03-11", "09:00")
    ).dispatches[0]
    expect(dispatch?.destination).toBe("Z2")
    expect(dispatch?.legs.map((leg) =>
      [leg.route.id, leg.route.source.code, leg.target, formatDay(leg.dispatchDate), formatDay(leg.departureDate), formatDay(leg.receptionDate)]
    )).toEqual([
      ["R2", "CD1", "HUB1", "2025-03-11", "2025-03-12", "2025-03-13"],
      ["R3", "HUB1", "Z2", "2025-03-13", "2025-03-13", "2025-03-13"]
    ])
    expect(dispatch?.deliveries.map((option) => formatDay(option.date)))
      .toEqual(["2025-03-13", "2025-03-14", "2025-03-15", "2025-03-17", "2025-03-18"])
    // (2 + 0.1 * 2) + (5 + 0.2 * 2)
    expect(dispatch?.cost).toBe(7.6)
  })
})

describe("dispatch grouping, stock and routing", () => {
  it("groups items by origin, dispatch type, delivery mode and zone", () => {
    const evaluation = evaluate(snapshotOf(), request("2025-03-10", [
      item({ units: 1, weightKg: 2 }),
      item({ units: 2, weightKg: 4, zone: undefined, ubigeo: "150122" }),
      item({ zone: "Z2" }),
      item({ dispatchType: "EXPRESS" })
    ]), MONDAY_9AM)
    expect(evaluation.items.map((result) => result.dispatch.code)).toEqual(["CD1-Z1-NH", "CD1-Z1-NH", "CD1-Z2-NH", "CD1-Z1-EH"])
    expect(evaluation.dispatches).toHaveLength(3)
    const first = evaluation.items[0]?.dispatch
    expect(first?.units).toBe(3)
    // 10 + 0.5 * 6 kg = 13, split by weight 2:4
    expect(first?.cost).toBe(13)
    expect(evaluation.items.slice(0, 2).map((result) => result.cost)).toEqual([4.33, 8.67])
  })

  it("takes an item without stock out of its dispatch and reports it", () => {
    const evaluation = evaluate(snapshotOf(), request("2025-03-10", [
      item({ sku: "SKU-B", units: 2 }),
      item({ sku: "SKU-B", units: 2 }),
      item({ sku: "SKU-A", units: 1 })
    ]), MONDAY_9AM)
    expect(evaluation.items.map((result) => result.stockShortage)).toEqual([
      undefined,
      { node: "CD1", sku: "SKU-B", requested: 2, available: 1, taken: 2, stock: 3 },
      undefined
    ])
    expect(evaluation.items[0]?.dispatch.units).toBe(3)
    expect(evaluation.items[1]?.cost).toBe(0)
  })

  it("says why an item has no route", () => {
    const evaluation = evaluate(snapshotOf(), request("2025-03-10", [
      item({ zone: "Z9" }),
      item({ zone: "Z2", dispatchType: "EXPRESS" }),
      item({ origin: "CD9" })
    ]), MONDAY_9AM)
    expect(evaluation.anyRouted).toBe(false)
    expect(evaluation.items.map((result) => [result.dispatch.status, result.dispatch.message])).toEqual([
      ["NO_ROUTE", "no zone serves zone \"Z9\" / ubigeo \"\""],
      ["NO_ROUTE", "no EXPRESS HOME_DELIVERY route from CD1 to Z2"],
      ["NO_ROUTE", "origin \"CD9\" is not a node of the network"]
    ])
  })
})
