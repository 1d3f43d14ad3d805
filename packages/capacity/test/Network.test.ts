import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { decodeNetwork, demoNetwork } from "../src/index.ts"
import { smallNetwork } from "./fixtures.ts"

const issuesOf = (input: unknown) => {
  const result = decodeNetwork(input)
  return Result.isFailure(result) ? result.failure.issues : []
}

describe("network document", () => {
  it("accepts the small test network and fills defaults", () => {
    const result = decodeNetwork(smallNetwork)
    expect(Result.isSuccess(result)).toBe(true)
    if (Result.isSuccess(result)) expect(result.success.nodes[1]?.timeZone).toBe("America/Lima")
  })

  it("names the path of an unknown node or zone reference", () => {
    const broken = {
      ...smallNetwork,
      routes: smallNetwork.routes.map((route, i) =>
        i === 0 ? { ...route, source: "CD9", target: { kind: "ZONES", zones: ["Z1", "Z7"] } } : route),
      stock: [{ node: "TD9", sku: "X", units: 1 }]
    }
    expect(issuesOf(broken)).toEqual([
      { path: "routes[0].source", message: "unknown node \"CD9\"" },
      { path: "routes[0].target.zones[1]", message: "unknown zone \"Z7\"" },
      { path: "stock[0].node", message: "unknown node \"TD9\"" }
    ])
  })

  it("names the path of a bad day of week and of a negative capacity", () => {
    const broken = {
      ...smallNetwork,
      nodes: smallNetwork.nodes.map((node, i) =>
        i === 0 ? { ...node, pickingDays: ["MON", "MONDAY"], pickingCapacity: -1 } : node)
    }
    const issues = issuesOf(broken)
    expect(issues.map((issue) => issue.path)).toEqual(["nodes[0].pickingDays[1]", "nodes[0].pickingCapacity"])
    expect(issues[0]?.message).toContain("\"MONDAY\"")
  })

  it("names the path of a capacity beyond PostgreSQL's integer, which an order could not be checked against", () => {
    const broken = {
      ...smallNetwork,
      nodes: smallNetwork.nodes.map((node, i) => (i === 0 ? { ...node, dispatchCapacity: 2_147_483_648 } : node)),
      routes: smallNetwork.routes.map((route, i) => (i === 0 ? { ...route, capacityPerDeparture: 2_147_483_647 } : route))
    }
    expect(issuesOf(broken)).toEqual([
      { path: "nodes[0].dispatchCapacity", message: "expected at most 2147483647 (a PostgreSQL integer), got 2147483648" }
    ])
    const pools = { ...smallNetwork, nodes: smallNetwork.nodes.map((node, i) => (i === 1 ? { ...node, pickingCapacity: { NORMAL: 1, EXPRESS: 1e12 } } : node)) }
    expect(issuesOf(pools).map((issue) => issue.path)).toEqual(["nodes[1].pickingCapacity.EXPRESS"])
  })

  it("rejects duplicate codes, overlapping zones and windows that end before they start", () => {
    const broken = {
      ...smallNetwork,
      zones: smallNetwork.zones.map((zone, i) =>
        i === 1
          ? { ...zone, code: "Z1", ubigeos: ["150122"], windows: [{ code: "AM", start: "13:00", end: "09:00", capacity: 1 }] }
          : zone)
    }
    expect(issuesOf(broken)).toEqual([
      { path: "zones[1].code", message: "duplicate zone code \"Z1\"" },
      { path: "zones[1].windows[0].end", message: "must be after start 13:00" },
      { path: "routes[2].target.zones[0]", message: "unknown zone \"Z2\"" }
    ])
  })

  it("validates the Lima demo network", () => {
    expect(issuesOf(demoNetwork)).toEqual([])
  })
})
