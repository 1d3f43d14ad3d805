import { distanceKm, type GeoPoint } from "./Geo.ts"
import { type NearestCandidates, nearestOfRanked, type OriginCandidate, type RankedCandidate } from "./ProximityIndex.ts"

export type { OriginCandidate, RankedCandidate } from "./ProximityIndex.ts"

/** One item line that needs an origin. */
export interface OriginDemand {
  readonly sku: string
  readonly units: number
}

export interface OriginSearchOptions {
  /** Distinct origins in the answer, counting the origins the request fixed itself. */
  readonly maxOrigins: number
  /** Item lines one origin may ship, counting lines with that fixed origin. */
  readonly maxItemsPerOrigin: number
  /** Candidates farther than this from the customer are never chosen. */
  readonly maxDistanceKm: number
  /** True: a candidate needs the units in stock (after earlier lines); false: it only needs to carry the SKU. */
  readonly requireUnits: boolean
}

export interface OriginSearchInput {
  readonly customer: GeoPoint
  readonly candidates: ReadonlyArray<OriginCandidate>
  /** Stock units of a SKU at a node; undefined when the node does not carry it. */
  readonly stockOf: (node: string, sku: string) => number | undefined
  /** Whether a node has a route to the destination for this dispatch type and mode. */
  readonly canServe: (node: string) => boolean
  /** Lines whose origin the request fixed: they hold stock, an origin and an item slot first. */
  readonly fixed: ReadonlyArray<{ readonly origin: string; readonly sku: string; readonly units: number }>
  /** `rankByProximity(customer, candidates, maxDistanceKm)` when the caller has it already. */
  readonly ranked?: ReadonlyArray<RankedCandidate>
  /** The same ranking read as far as needed (a ProximityIndex's): preferred to `ranked` and `candidates`. */
  readonly nearest?: NearestCandidates
  /**
   * The candidates in range holding the SKU (`stockOf` not undefined), nearest first (ties by
   * code), when the caller can list them cheaply; undefined: the search scans `nearest` for them.
   */
  readonly holdersInRange?: (sku: string) => ReadonlyArray<RankedCandidate> | undefined
}

export type OriginChoice =
  | { readonly _tag: "Chosen"; readonly origin: string; readonly distanceKm: number }
  | {
    readonly _tag: "Unserved"
    /** Most units of the SKU left at one reachable candidate in range (0 when none carries it). */
    readonly available: number
  }

/** Candidates within `maxDistanceKm` of the customer, nearest first (ties by code). */
export const rankByProximity = (
  customer: GeoPoint,
  candidates: ReadonlyArray<OriginCandidate>,
  maxDistanceKm: number
): ReadonlyArray<RankedCandidate> => {
  const ranked: Array<RankedCandidate> = []
  for (const candidate of candidates) {
    const distance = distanceKm(customer, candidate.point)
    if (distance <= maxDistanceKm) ranked.push({ code: candidate.code, distanceKm: distance })
  }
  return ranked.sort((a, b) => a.distanceKm - b.distanceKm || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0))
}

/**
 * Choose an origin for each demand, in request order: the nearest candidate in range that can
 * serve the destination, has the stock (net of lines already placed there) and is within the
 * origin and items-per-origin bounds. A demand no candidate can take is Unserved.
 */
export const searchOrigins = (
  input: OriginSearchInput,
  demands: ReadonlyArray<OriginDemand>,
  options: OriginSearchOptions
): ReadonlyArray<OriginChoice> => {
  const nearest = input.nearest ??
    nearestOfRanked(input.ranked ?? rankByProximity(input.customer, input.candidates, options.maxDistanceKm))
  // Units already placed, by SKU then node: no key string built per lookup (this runs for every holder of every line).
  const taken = new Map<string, Map<string, number>>()
  const take = (node: string, sku: string, units: number) => {
    let atNodes = taken.get(sku)
    if (atNodes === undefined) taken.set(sku, atNodes = new Map())
    atNodes.set(node, (atNodes.get(node) ?? 0) + units)
  }
  const linesAt = new Map<string, number>()
  for (const line of input.fixed) {
    take(line.origin, line.sku, line.units)
    linesAt.set(line.origin, (linesAt.get(line.origin) ?? 0) + 1)
  }

  return demands.map((demand): OriginChoice => {
    let best = 0
    const takenOfSku = taken.get(demand.sku)
    // Candidates that do not hold the SKU are passed over without effect, so scanning only its
    // holders (in the same order) chooses the same origin and finds the same `best`.
    const consider = (candidate: RankedCandidate): OriginChoice | undefined => {
      if (!input.canServe(candidate.code)) return undefined
      const stock = input.stockOf(candidate.code, demand.sku)
      if (stock === undefined) return undefined
      const available = takenOfSku === undefined ? stock : stock - (takenOfSku.get(candidate.code) ?? 0)
      best = Math.max(best, available)
      if (options.requireUnits && available < demand.units) return undefined
      const lines = linesAt.get(candidate.code)
      if (lines === undefined && linesAt.size >= options.maxOrigins) return undefined
      if ((lines ?? 0) >= options.maxItemsPerOrigin) return undefined
      linesAt.set(candidate.code, (lines ?? 0) + 1)
      take(candidate.code, demand.sku, demand.units)
      return { _tag: "Chosen", origin: candidate.code, distanceKm: candidate.distanceKm }
    }
    const holders = input.holdersInRange?.(demand.sku)
    if (holders !== undefined) {
      for (const candidate of holders) {
        const chosen = consider(candidate)
        if (chosen !== undefined) return chosen
      }
    } else {
      for (let i = 0;; i++) {
        const candidate = nearest.at(i)
        if (candidate === undefined) break
        const chosen = consider(candidate)
        if (chosen !== undefined) return chosen
      }
    }
    return { _tag: "Unserved", available: Math.max(0, best) }
  })
}
