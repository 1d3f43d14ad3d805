import type { OriginCandidate, RankedCandidate } from "./OriginSearch.ts"
import { rankByProximity } from "./OriginSearch.ts"
import type { GeoPoint } from "./Geo.ts"

/**
 * The pickup stores offered for store withdrawal: the `limit` stores nearest the customer
 * that `accept` takes (for example, stores some item of the request can reach).
 */
export const nearestPickupStores = (
  customer: GeoPoint,
  stores: ReadonlyArray<OriginCandidate>,
  limit: number,
  accept: (store: string) => boolean
): ReadonlyArray<RankedCandidate> => {
  const chosen: Array<RankedCandidate> = []
  for (const store of rankByProximity(customer, stores, Number.POSITIVE_INFINITY)) {
    if (chosen.length >= limit) break
    if (accept(store.code)) chosen.push(store)
  }
  return chosen
}
