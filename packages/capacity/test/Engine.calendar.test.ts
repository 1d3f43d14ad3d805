import { describe, expect, it } from "vitest"
import { type DispatchResult, evaluate, formatDay, type NetworkDocumentInput } from "../src/index.ts"
import { item, limaTime, request, smallNetwork, snapshotOf } from "./fixtures.ts"

const dates = (dispatch: DispatchResult | undefined) => ({
  picking: dispatch?.pickingDate === undefined ? "" : formatDay(dispatch.pickingDate),
  legs: (dispatch?.legs ?? []).map((leg) =>
    `${leg.route.id} ${formatDay(leg.dispatchDate)} ${formatDay(leg.departureDate)} ${formatDay(leg.receptionDate)}`
  ),
  deliveries: (dispatch?.deliveries ?? []).map((option) => formatDay(option.date))
})

const planFor = (purchaseDate: string, instant: number, network: NetworkDocumentInput = smallNetwork) =>
  dates(evaluate(snapshotOf(network), request(purchaseDate, [item()]), instant).dispatches[0])

const withCd1 = (patch: Record<string, unknown>): NetworkDocumentInput => ({
  ...smallNetwork,
  nodes: smallNetwork.nodes.map((node) => (node.code === "CD1" ? { ...node, ...patch } : node))
})

const withR1Lead = (unit: "BUSINESS_DAYS" | "CALENDAR_DAYS"): NetworkDocumentInput => ({
  ...smallNetwork,
  routes: smallNetwork.routes.map((route) => (route.id === "R1" ? { ...route, leadTime: { days: 1, unit } } : route))
})

describe("picking date and cut-off", () => {
  it("picks the same day one minute before the cut-off", () => {
    expect(planFor("2025-03-10", limaTime("2025-03-10", "13:59"))).toEqual({
      picking: "2025-03-10",
      legs: ["R1 2025-03-10 2025-03-10 2025-03-11"],
      deliveries: ["2025-03-11", "2025-03-12", "2025-03-13", "2025-03-14", "2025-03-15"]
    })
  })

  it("picks the next picking day at the cut-off", () => {
    expect(planFor("2025-03-10", limaTime("2025-03-10", "14:00"))).toEqual({
      picking: "2025-03-11",
      legs: ["R1 2025-03-11 2025-03-11 2025-03-12"],
      deliveries: ["2025-03-12", "2025-03-13", "2025-03-14", "2025-03-15", "2025-03-17"]
    })
  })

  it("reads the cut-off in the node's time zone, not UTC", () => {
    // 18:30 UTC is past 14:00 in UTC but 13:30 in Lima.
    expect(planFor("2025-03-10", Date.parse("2025-03-10T18:30:00Z")).picking).toBe("2025-03-10")
    const tokyo = withCd1({ timeZone: "Asia/Tokyo" })
    expect(planFor("2025-03-10", Date.parse("2025-03-10T04:59:00Z"), tokyo).picking).toBe("2025-03-10")
    expect(planFor("2025-03-10", Date.parse("2025-03-10T05:00:00Z"), tokyo).picking).toBe("2025-03-11")
  })

  it("never picks before today in the node's zone even if the purchase date is earlier", () => {
    expect(planFor("2025-03-03", limaTime("2025-03-10", "09:00")).picking).toBe("2025-03-10")
  })

  it("skips days of week the node does not pick", () => {
    expect(planFor("2025-03-15", limaTime("2025-03-15", "10:00")).picking).toBe("2025-03-17")
  })

  it("skips holidays", () => {
    expect(planFor("2025-07-28", limaTime("2025-07-28", "09:00"))).toEqual({
      picking: "2025-07-30",
      legs: ["R1 2025-07-30 2025-07-30 2025-07-31"],
      deliveries: ["2025-07-31", "2025-08-01", "2025-08-02", "2025-08-04", "2025-08-05"]
    })
  })

  it("adds processing days in the node's working days", () => {
    const slow = withCd1({ processingDays: 2 })
    expect(planFor("2025-03-13", limaTime("2025-03-13", "09:00"), slow)).toMatchObject({
      picking: "2025-03-13",
      legs: ["R1 2025-03-17 2025-03-17 2025-03-18"]
    })
  })
})

describe("lead times", () => {
  it("counts business days over a weekend", () => {
    expect(planFor("2025-03-14", limaTime("2025-03-14", "10:00"), withR1Lead("BUSINESS_DAYS"))).toEqual({
      picking: "2025-03-14",
      legs: ["R1 2025-03-14 2025-03-14 2025-03-17"],
      deliveries: ["2025-03-17", "2025-03-18", "2025-03-19", "2025-03-20", "2025-03-21"]
    })
  })

  it("counts calendar days straight through a weekend", () => {
    expect(planFor("2025-03-14", limaTime("2025-03-14", "10:00"), withR1Lead("CALENDAR_DAYS"))).toEqual({
      picking: "2025-03-14",
      legs: ["R1 2025-03-14 2025-03-14 2025-03-15"],
      deliveries: ["2025-03-15", "2025-03-17", "2025-03-18", "2025-03-19", "2025-03-20"]
    })
  })

  it("crosses a month end", () => {
    expect(planFor("2025-02-28", limaTime("2025-02-28", "10:00")).legs).toEqual(["R1 2025-02-28 2025-02-28 2025-03-03"])
  })

  it("crosses a year end past a New Year holiday", () => {
    expect(planFor("2025-12-31", limaTime("2025-12-31", "10:00"))).toEqual({
      picking: "2025-12-31",
      legs: ["R1 2025-12-31 2025-12-31 2026-01-02"],
      deliveries: ["2026-01-02", "2026-01-03", "2026-01-05", "2026-01-06", "2026-01-07"]
    })
  })
})
