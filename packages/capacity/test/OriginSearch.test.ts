import { describe, expect, it } from "vitest"
import { nearestPickupStores, type OriginSearchInput, type OriginSearchOptions, rankByProximity, searchOrigins } from "../src/index.ts"

// Along the equator one degree of longitude is 111.195 km: N1 ~1.1 km, N2 ~3.3 km, N3 ~11.1 km, N4 ~55.6 km.
const at = (km: number) => ({ latitude: 0, longitude: km / 111.195 })
const customer = { latitude: 0, longitude: 0 }
const candidates = [
  { code: "N3", point: at(11.1) },
  { code: "N1", point: at(1.1) },
  { code: "N4", point: at(55.6) },
  { code: "N2", point: at(3.3) }
]
const stock: Record<string, Record<string, number>> = {
  N1: { A: 2, B: 10 },
  N2: { A: 5, B: 10 },
  N3: { A: 50 },
  N4: { A: 500, C: 1 }
}
const input = (overrides: Partial<OriginSearchInput> = {}): OriginSearchInput => ({
  customer,
  candidates,
  stockOf: (node, sku) => stock[node]?.[sku],
  canServe: () => true,
  fixed: [],
  ...overrides
})
const unbounded: OriginSearchOptions = {
  maxOrigins: Number.POSITIVE_INFINITY,
  maxItemsPerOrigin: Number.POSITIVE_INFINITY,
  maxDistanceKm: Number.POSITIVE_INFINITY,
  requireUnits: true
}
const origins = (choices: ReturnType<typeof searchOrigins>) =>
  choices.map((choice) => (choice._tag === "Chosen" ? choice.origin : `unserved:${choice.available}`))

describe("rankByProximity", () => {
  it("orders candidates nearest first and drops those beyond the distance", () => {
    expect(rankByProximity(customer, candidates, 20).map((ranked) => ranked.code)).toEqual(["N1", "N2", "N3"])
    expect(rankByProximity(customer, candidates, 20)[0]!.distanceKm).toBeCloseTo(1.1, 3)
  })
})

describe("searchOrigins", () => {
  it("gives each item the nearest candidate holding enough stock", () => {
    expect(origins(searchOrigins(input(), [{ sku: "A", units: 2 }, { sku: "A", units: 3 }, { sku: "A", units: 40 }], unbounded)))
      .toEqual(["N1", "N2", "N3"])
  })

  it("counts the stock earlier lines took at the same candidate", () => {
    expect(origins(searchOrigins(input(), [{ sku: "A", units: 2 }, { sku: "A", units: 1 }], unbounded))).toEqual(["N1", "N2"])
  })

  it("counts the lines with a fixed origin first", () => {
    const fixed = [{ origin: "N1", sku: "A", units: 2 }]
    expect(origins(searchOrigins(input({ fixed }), [{ sku: "A", units: 1 }], unbounded))).toEqual(["N2"])
  })

  it("never chooses a candidate beyond maxDistanceKm, and reports the most units left in range", () => {
    const choices = searchOrigins(input(), [{ sku: "A", units: 60 }, { sku: "C", units: 1 }], { ...unbounded, maxDistanceKm: 20 })
    expect(origins(choices)).toEqual(["unserved:50", "unserved:0"])
    expect(origins(searchOrigins(input(), [{ sku: "A", units: 60 }], { ...unbounded, maxDistanceKm: 10 }))).toEqual(["unserved:5"])
  })

  it("skips candidates without a route to the destination", () => {
    expect(origins(searchOrigins(input({ canServe: (node) => node !== "N1" }), [{ sku: "A", units: 1 }], unbounded))).toEqual(["N2"])
  })

  it("opens at most maxOrigins origins, counting fixed ones", () => {
    const demands = [{ sku: "B", units: 10 }, { sku: "B", units: 10 }, { sku: "B", units: 1 }]
    expect(origins(searchOrigins(input(), demands, { ...unbounded, maxOrigins: 2 }))).toEqual(["N1", "N2", "unserved:0"])
    const fixed = [{ origin: "N4", sku: "C", units: 1 }]
    expect(origins(searchOrigins(input({ fixed }), [{ sku: "A", units: 1 }], { ...unbounded, maxOrigins: 1 }))).toEqual(["N4"])
  })

  it("gives one origin at most maxItemsPerOrigin lines", () => {
    const demands = [{ sku: "B", units: 1 }, { sku: "B", units: 1 }, { sku: "B", units: 1 }]
    expect(origins(searchOrigins(input(), demands, { ...unbounded, maxItemsPerOrigin: 2 }))).toEqual(["N1", "N1", "N2"])
  })

  it("without stock validation, any candidate carrying the SKU will do", () => {
    expect(origins(searchOrigins(input(), [{ sku: "A", units: 1000 }, { sku: "D", units: 1 }], { ...unbounded, requireUnits: false })))
      .toEqual(["N1", "unserved:0"])
  })
})

describe("nearestPickupStores", () => {
  it("offers the nearest stores the predicate accepts, at most limit", () => {
    const chosen = nearestPickupStores(customer, candidates, 2, (store) => store !== "N2")
    expect(chosen.map((store) => store.code)).toEqual(["N1", "N3"])
    expect(nearestPickupStores(customer, candidates, 10, () => true).map((store) => store.code)).toEqual(["N1", "N2", "N3", "N4"])
  })
})
