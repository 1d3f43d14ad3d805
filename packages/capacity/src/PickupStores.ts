import type { GeoPoint } from "./Geo.ts"
import type { OriginCandidate, RankedCandidate } from "./OriginSearch.ts"
import { rankByProximity } from "./OriginSearch.ts"
import { type NearestCandidates, nearestOfRanked } from "./ProximityIndex.ts"

/**
 * The pickup stores offered for store withdrawal: the `limit` stores nearest the customer
 * that `accept` takes (for example, stores some item of the request can reach).
 */
export const nearestPickupStores = (
  customer: GeoPoint,
  stores: ReadonlyArray<OriginCandidate>,
  limit: number,
  accept: (store: string) => boolean
): ReadonlyArray<RankedCandidate> =>
  nearestAcceptedStores(nearestOfRanked(rankByProximity(customer, stores, Number.POSITIVE_INFINITY)), limit, accept)

/** `nearestPickupStores` over stores already ranked nearest first (a ProximityIndex's, read only as far as needed). */
export const nearestAcceptedStores = (
  stores: NearestCandidates,
  limit: number,
  accept: (store: string) => boolean
): ReadonlyArray<RankedCandidate> => {
  const chosen: Array<RankedCandidate> = []
  for (let i = 0;; i++) {
    if (chosen.length >= limit) break
    const store = stores.at(i)
    if (store === undefined) break
    if (accept(store.code)) chosen.push(store)
  }
  return chosen
}
