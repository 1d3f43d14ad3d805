import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { capacityLimits, type Consumption, consume, emptyLedger, evaluate, release, usedOn, usesOfDispatch } from "../src/index.ts"
import { day, item, limaTime, request, snapshotOf } from "./fixtures.ts"

const limits = capacityLimits(snapshotOf())
const R1 = { _tag: "RouteDeparture", route: "R1" } as const
const PICKING = { _tag: "Picking", node: "CD1", pool: "ALL" } as const
const order = (orderId: string, units: number): Consumption => ({
  orderId,
  uses: [
    { resource: PICKING, date: "2025-03-10", amount: units },
    { resource: R1, date: "2025-03-10", amount: units }
  ]
})

describe("ledger", () => {
  it("consumes capacity once per order id", () => {
    const once = Result.getOrThrow(consume(emptyLedger, limits, order("A-1", 4)))
    const twice = Result.getOrThrow(consume(once, limits, order("A-1", 4)))
    expect(usedOn(twice, PICKING, "2025-03-10")).toBe(4)
    expect(usedOn(twice, R1, "2025-03-10")).toBe(4)
    expect(twice).toBe(once)
  })

  it("refuses an order that no longer fits, naming the resource and what is left", () => {
    const ledger = Result.getOrThrow(consume(emptyLedger, limits, order("A-1", 7)))
    const refused = consume(ledger, limits, order("A-2", 4))
    expect(Result.isFailure(refused)).toBe(true)
    if (Result.isFailure(refused)) {
      expect(refused.failure).toMatchObject({ _tag: "CapacityExceeded", resource: PICKING, used: 7, total: 10, requested: 4 })
    }
    expect(usedOn(ledger, PICKING, "2025-03-10")).toBe(7)
  })

  it("refuses an unknown resource", () => {
    const refused = consume(emptyLedger, limits, {
      orderId: "X",
      uses: [{ resource: { _tag: "RouteDeparture", route: "R9" }, date: "2025-03-10", amount: 1 }]
    })
    expect(Result.isFailure(refused) && refused.failure._tag).toBe("UnknownResource")
  })

  it("releases what an order took", () => {
    const ledger = Result.getOrThrow(consume(emptyLedger, limits, order("A-1", 3)))
    const more = Result.getOrThrow(consume(ledger, limits, order("A-2", 5)))
    const released = release(more, "A-1")
    expect(usedOn(released, PICKING, "2025-03-10")).toBe(5)
    expect(release(released, "A-1")).toBe(released)
    expect(usedOn(release(released, "A-2"), R1, "2025-03-10")).toBe(0)
  })

  it("feeds a snapshot that evaluation reads", () => {
    const ledger = Result.getOrThrow(consume(emptyLedger, limits, order("A-1", 10)))
    const snapshot = snapshotOf(undefined, ledger)
    expect(snapshot.nodes.get("CD1")?.picking.NORMAL.used.get(day("2025-03-10"))).toBe(10)
    expect(snapshot.routes.get("R1")?.used.get(day("2025-03-10"))).toBe(10)
  })
})

describe("consuming a planned dispatch", () => {
  it("takes picking, departures, dispatch pools and the chosen window, so the next evaluation rolls over", () => {
    const snapshot = snapshotOf()
    const dispatch = evaluate(snapshot, request("2025-03-10", [item({ units: 10 })]), limaTime("2025-03-10", "09:00")).dispatches[0]
    if (dispatch === undefined) throw new Error("no dispatch")
    const uses = usesOfDispatch(dispatch, { date: day("2025-03-11"), window: "AM" })
    expect(uses.map((use) => [use.resource._tag, use.date, use.amount])).toEqual([
      ["Picking", "2025-03-10", 10],
      ["RouteDeparture", "2025-03-10", 10],
      ["NodeDispatch", "2025-03-10", 10],
      ["ZoneWindow", "2025-03-11", 1]
    ])
    const ledger = Result.getOrThrow(consume(emptyLedger, capacityLimits(snapshot), { orderId: "O-1", uses }))
    const next = evaluate(snapshotOf(undefined, ledger), request("2025-03-10", [item()]), limaTime("2025-03-10", "09:00"))
    expect(next.dispatches[0]?.pickingDate).toBe(day("2025-03-11"))
  })
})
