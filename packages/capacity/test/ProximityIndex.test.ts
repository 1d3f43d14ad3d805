import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  type NearestCandidates,
  nearestAcceptedStores,
  nearestOfRanked,
  nearestPickupStores,
  type OriginCandidate,
  type OriginSearchOptions,
  proximityIndexOf,
  rankByProximity,
  type RankedCandidate,
  searchOrigins
} from "../src/index.ts"

/**
 * The latitude sweep of ProximityIndex must rank exactly as rankByProximity (every candidate, each
 * distance, ties by code), whatever order its entries are read in; and searching a SKU among its
 * holders must choose what scanning every candidate chooses.
 */

// Points bunched in a few places, some shared exactly (ties broken by code), some at equal latitude.
const place = fc.constantFrom(
  { latitude: -12.1, longitude: -77.03 },
  { latitude: -12.1, longitude: -76.9 },
  { latitude: -12.0, longitude: -77.03 },
  { latitude: -16.4, longitude: -71.5 },
  { latitude: 0, longitude: 179.9 },
  { latitude: 0, longitude: -179.9 },
  { latitude: 89.99, longitude: 10 }
)
const point = fc.oneof(
  place,
  fc.record({ latitude: fc.double({ min: -90, max: 90, noNaN: true }), longitude: fc.double({ min: -180, max: 180, noNaN: true }) }),
  fc.record({ latitude: fc.double({ min: -12.3, max: -11.9, noNaN: true }), longitude: fc.double({ min: -77.2, max: -76.8, noNaN: true }) })
)
const candidates: fc.Arbitrary<ReadonlyArray<OriginCandidate>> = fc.uniqueArray(fc.string({ minLength: 1, maxLength: 3 }), { maxLength: 60 })
  .chain((codes) => fc.tuple(...codes.map((code) => point.map((p): OriginCandidate => ({ code, point: p })))))
const range = fc.oneof(
  fc.constant(Number.POSITIVE_INFINITY),
  fc.constant(0),
  fc.double({ min: 0, max: 25_000, noNaN: true }),
  fc.double({ min: 0, max: 60, noNaN: true })
)

const readAll = (nearest: NearestCandidates): ReadonlyArray<RankedCandidate> => {
  const all: Array<RankedCandidate> = []
  for (let i = 0;; i++) {
    const next = nearest.at(i)
    if (next === undefined) return all
    all.push(next)
  }
}

describe("ProximityIndex", () => {
  it("ranks every candidate in range as rankByProximity does, distances and ties included", () => {
    fc.assert(fc.property(candidates, point, range, (list, customer, maxKm) => {
      expect(readAll(proximityIndexOf(list).nearest(customer, maxKm))).toEqual(rankByProximity(customer, list, maxKm))
    }), { numRuns: 400 })
  })

  it("gives the same entry at each position whatever order positions are asked in", () => {
    fc.assert(fc.property(candidates, point, range, fc.array(fc.nat(70), { maxLength: 30 }), (list, customer, maxKm, asked) => {
      const expected = rankByProximity(customer, list, maxKm)
      const nearest = proximityIndexOf(list).nearest(customer, maxKm)
      for (const i of asked) expect(nearest.at(i)).toEqual(expected[i])
    }), { numRuns: 200 })
  })

  it("reads only the band of latitudes it needs: the nearest of many far-apart candidates costs a few distance computations", () => {
    const spread = Array.from({ length: 2000 }, (_, i): OriginCandidate => ({
      code: `N${i}`,
      point: { latitude: -18 + (i * 15) / 2000, longitude: -75 }
    }))
    const visited: Array<number> = []
    const counting = spread.map((candidate) => ({
      code: candidate.code,
      get point() {
        visited.push(1)
        return candidate.point
      }
    }))
    const index = proximityIndexOf(counting)
    visited.length = 0
    const nearest = index.nearest({ latitude: -12, longitude: -75 }, Number.POSITIVE_INFINITY)
    expect(nearest.at(0)?.code).toBe(rankByProximity({ latitude: -12, longitude: -75 }, spread, Number.POSITIVE_INFINITY)[0]?.code)
    expect(visited.length).toBeLessThan(20)
  })

  it("pickup stores over the sweep are those of the full ranking", () => {
    fc.assert(fc.property(candidates, point, fc.integer({ min: 1, max: 5 }), fc.func(fc.boolean()), (list, customer, limit, accept) => {
      const indexed = nearestAcceptedStores(proximityIndexOf(list).nearest(customer, Number.POSITIVE_INFINITY), limit, accept)
      expect(indexed).toEqual(nearestPickupStores(customer, list, limit, accept))
    }), { numRuns: 200 })
  })
})

const skus = ["A", "B", "C", "D"] as const
const stockTable = (codes: ReadonlyArray<string>) =>
  fc.tuple(...codes.map(() => fc.dictionary(fc.constantFrom(...skus), fc.nat(8), { maxKeys: 4 })))

describe("searchOrigins among a SKU's holders", () => {
  it("chooses the origins, and reports the units available, that scanning every candidate does", () => {
    const scenario = candidates.chain((list) =>
      fc.record({
        list: fc.constant(list),
        customer: point,
        stock: stockTable(list.map((c) => c.code)),
        serving: fc.func(fc.boolean()),
        fixed: fc.array(fc.record({ origin: fc.constantFrom("", ...list.map((c) => c.code)), sku: fc.constantFrom(...skus), units: fc.nat(4) }), { maxLength: 3 }),
        demands: fc.array(fc.record({ sku: fc.constantFrom(...skus, "Z"), units: fc.integer({ min: 1, max: 6 }) }), { minLength: 1, maxLength: 6 }),
        options: fc.record({
          maxOrigins: fc.oneof(fc.constant(Number.POSITIVE_INFINITY), fc.integer({ min: 1, max: 3 })),
          maxItemsPerOrigin: fc.oneof(fc.constant(Number.POSITIVE_INFINITY), fc.integer({ min: 1, max: 3 })),
          maxDistanceKm: range,
          requireUnits: fc.boolean()
        }) as fc.Arbitrary<OriginSearchOptions>
      }))
    fc.assert(fc.property(scenario, ({ list, customer, stock, serving, fixed, demands, options }) => {
      const held = new Map(list.map((c, i) => [c.code, stock[i] ?? {}]))
      const stockOf = (node: string, sku: string) => held.get(node)?.[sku]
      const base = { customer, candidates: list, stockOf, canServe: (node: string) => serving(node), fixed }
      const reference = searchOrigins(base, demands, options)
      const ranked = rankByProximity(customer, list, options.maxDistanceKm)
      const holdersInRange = (sku: string) => ranked.filter((c) => stockOf(c.code, sku) !== undefined)
      const nearest = proximityIndexOf(list).nearest(customer, options.maxDistanceKm)
      expect(searchOrigins({ ...base, nearest, holdersInRange }, demands, options)).toEqual(reference)
      expect(searchOrigins({ ...base, nearest }, demands, options)).toEqual(reference)
      expect(searchOrigins({ ...base, nearest: nearestOfRanked(ranked), holdersInRange: () => undefined }, demands, options)).toEqual(reference)
    }), { numRuns: 300 })
  })
})
