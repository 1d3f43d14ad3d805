import { distanceKm, type GeoPoint } from "./Geo.ts"
import { originIndexOf } from "./OriginIndex.ts"
import { rankByProximity } from "./OriginSearch.ts"
import {
  type NearestCandidates,
  nearestOfRanked,
  type ProximityIndex,
  proximityIndexOf,
  type RankedCandidate
} from "./ProximityIndex.ts"
import type { Snapshot } from "./SnapshotModel.ts"

/**
 * What variant B's origin search and pickup-store choice read for one request: the origins within
 * range and the stores, nearest the customer first, and a SKU's holders among those origins.
 */
export interface CandidateSearch {
  /** `rankByProximity(customer, index.origins, maxDistanceKm)`, read as far as needed. */
  readonly origins: NearestCandidates
  /** `rankByProximity(customer, index.stores, +∞)`, read as far as needed. */
  readonly stores: NearestCandidates
  /**
   * The origins of `origins` holding the SKU (`stockOf` not undefined), in the same order; undefined
   * when many nodes hold it, so that scanning `origins` finds one sooner than listing them would.
   */
  readonly holdersInRange: (sku: string) => ReadonlyArray<RankedCandidate> | undefined
}

export type CandidateSearchOf = (snapshot: Snapshot, customer: GeoPoint, maxDistanceKm: number) => CandidateSearch

/** A SKU held by at most this many nodes is searched among its holders; one held more widely, nearest candidate first. */
export const HOLDERS_LISTED_UP_TO = 64

interface Proximity {
  readonly origins: ProximityIndex
  readonly stores: ProximityIndex
}

const proximities = new WeakMap<Snapshot, Proximity>()

const proximityOf = (snapshot: Snapshot): Proximity => {
  let proximity = proximities.get(snapshot)
  if (proximity === undefined) {
    const index = originIndexOf(snapshot)
    proximity = { origins: proximityIndexOf(index.origins), stores: proximityIndexOf(index.stores) }
    proximities.set(snapshot, proximity)
  }
  return proximity
}

const byDistanceThenCode = (a: RankedCandidate, b: RankedCandidate): number =>
  a.distanceKm - b.distanceKm || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0)

/**
 * Indexed by geography (candidates sorted by latitude, read only as far as the request needs) and
 * by SKU (its holders): what a request touches does not grow with the network's nodes and stock.
 */
export const indexedCandidateSearch: CandidateSearchOf = (snapshot, customer, maxDistanceKm) => {
  const index = originIndexOf(snapshot)
  const proximity = proximityOf(snapshot)
  const listed = new Map<string, ReadonlyArray<RankedCandidate> | undefined>()
  return {
    origins: proximity.origins.nearest(customer, maxDistanceKm),
    stores: proximity.stores.nearest(customer, Number.POSITIVE_INFINITY),
    holdersInRange: (sku) => {
      if (listed.has(sku)) return listed.get(sku)
      const holders = index.holders(sku)
      let inRange: Array<RankedCandidate> | undefined
      if (holders.length <= HOLDERS_LISTED_UP_TO) {
        inRange = []
        for (const code of holders) {
          const candidate = proximity.origins.candidateOf(code)
          if (candidate === undefined) continue
          const distance = distanceKm(customer, candidate.point)
          if (distance <= maxDistanceKm) inRange.push({ code, distanceKm: distance })
        }
        inRange.sort(byDistanceThenCode)
      }
      listed.set(sku, inRange)
      return inRange
    }
  }
}

/** Every candidate ranked, every time: what the indexed search must equal (the tests' reference). */
export const fullScanCandidateSearch: CandidateSearchOf = (snapshot, customer, maxDistanceKm) => {
  const index = originIndexOf(snapshot)
  return {
    origins: nearestOfRanked(rankByProximity(customer, index.origins, maxDistanceKm)),
    stores: nearestOfRanked(rankByProximity(customer, index.stores, Number.POSITIVE_INFINITY)),
    holdersInRange: () => undefined
  }
}
