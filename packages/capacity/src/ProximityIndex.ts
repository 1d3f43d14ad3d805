import { distanceKm, EARTH_RADIUS_KM, type GeoPoint } from "./Geo.ts"

/** A node that may ship items: its code and where it is. */
export interface OriginCandidate {
  readonly code: string
  readonly point: GeoPoint
}

export interface RankedCandidate {
  readonly code: string
  readonly distanceKm: number
}

/**
 * Candidates within range of a point, nearest first (ties by code): `rankByProximity`'s list, but
 * possibly found only as far as it is read.
 */
export interface NearestCandidates {
  /** The i-th nearest candidate in range, or undefined when fewer than i + 1 are. */
  readonly at: (i: number) => RankedCandidate | undefined
}

/** A list already ranked (`rankByProximity`), read as NearestCandidates. */
export const nearestOfRanked = (ranked: ReadonlyArray<RankedCandidate>): NearestCandidates => ({ at: (i) => ranked[i] })

export const NO_CANDIDATES: NearestCandidates = nearestOfRanked([])

/**
 * Candidates sorted by latitude, so a request ranks only those near it: the great-circle distance
 * between two points is at least Earth's radius times their difference of latitude, so once the
 * nearest candidate not yet settled is nearer than every latitude not yet visited, it is the next
 * one. A request reads the band of latitudes its answer needs, whatever the size of the network.
 */
export interface ProximityIndex {
  readonly candidates: ReadonlyArray<OriginCandidate>
  /** The candidate of this code, if it is one. */
  readonly candidateOf: (code: string) => OriginCandidate | undefined
  /** Equal, candidate for candidate, to `rankByProximity(customer, candidates, maxDistanceKm)`. */
  readonly nearest: (customer: GeoPoint, maxDistanceKm: number) => NearestCandidates
}

const RADIANS = Math.PI / 180

/**
 * A lower bound of `distanceKm` between points `degrees` of latitude apart: Earth's radius times
 * the angle, shaved (relatively and by a micrometre) so that rounding in the haversine formula
 * never makes a computed distance fall below it.
 */
const latitudeBoundKm = (degrees: number): number => degrees * RADIANS * EARTH_RADIUS_KM * (1 - 1e-9) - 1e-9

const byDistanceThenCode = (a: RankedCandidate, b: RankedCandidate): number =>
  a.distanceKm - b.distanceKm || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0)

/** `rankByProximity` (OriginSearch.ts imports this module, so it cannot be imported here). */
const rankAll = (customer: GeoPoint, candidates: ReadonlyArray<OriginCandidate>, maxDistanceKm: number): ReadonlyArray<RankedCandidate> => {
  const ranked: Array<RankedCandidate> = []
  for (const candidate of candidates) {
    const distance = distanceKm(customer, candidate.point)
    if (distance <= maxDistanceKm) ranked.push({ code: candidate.code, distanceKm: distance })
  }
  return ranked.sort(byDistanceThenCode)
}

export const proximityIndexOf = (candidates: ReadonlyArray<OriginCandidate>): ProximityIndex => {
  const sorted = [...candidates].sort((a, b) => a.point.latitude - b.point.latitude)
  const latitudes = Float64Array.from(sorted, (candidate) => candidate.point.latitude)
  const byCode = new Map<string, OriginCandidate>()
  for (const candidate of candidates) if (!byCode.has(candidate.code)) byCode.set(candidate.code, candidate)
  return {
    candidates,
    candidateOf: (code) => byCode.get(code),
    nearest: (customer, maxDistanceKm) =>
      // The bound holds for points on the sphere; anything else is ranked the plain way.
      customer.latitude >= -90 && customer.latitude <= 90 && Number.isFinite(customer.longitude)
        ? new LatitudeSweep(sorted, latitudes, customer, maxDistanceKm)
        : nearestOfRanked(rankAll(customer, candidates, maxDistanceKm))
  }
}

/** Index of the first latitude >= `latitude` (latitudes ascending). */
const firstAtOrAbove = (latitudes: Float64Array, latitude: number): number => {
  let low = 0
  let high = latitudes.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if ((latitudes[middle] ?? 0) < latitude) low = middle + 1
    else high = middle
  }
  return low
}

/**
 * Walks out from the customer's latitude, south and north, nearest latitude first. `pending` holds
 * the candidates visited (in range) but not yet settled, farthest first; one is settled when it is
 * nearer than the latitude bound of every candidate not visited yet, or when none of those can be
 * in range.
 */
class LatitudeSweep implements NearestCandidates {
  private readonly settled: Array<RankedCandidate> = []
  private readonly pending: Array<RankedCandidate> = []
  private south: number
  private north: number

  constructor(
    private readonly sorted: ReadonlyArray<OriginCandidate>,
    private readonly latitudes: Float64Array,
    private readonly customer: GeoPoint,
    private readonly maxDistanceKm: number
  ) {
    this.north = firstAtOrAbove(latitudes, customer.latitude)
    this.south = this.north - 1
  }

  at(i: number): RankedCandidate | undefined {
    while (this.settled.length <= i && this.step()) {
      // each step settles or visits one candidate
    }
    return this.settled[i]
  }

  /** Settles the next candidate or visits one more; false when every candidate in range is settled. */
  private step(): boolean {
    const latitude = this.customer.latitude
    const southGap = this.south >= 0 ? latitude - (this.latitudes[this.south] ?? 0) : Number.POSITIVE_INFINITY
    const northGap = this.north < this.latitudes.length ? (this.latitudes[this.north] ?? 0) - latitude : Number.POSITIVE_INFINITY
    const gap = Math.min(southGap, northGap)
    const bound = gap === Number.POSITIVE_INFINITY ? gap : latitudeBoundKm(gap)
    const beyondRange = bound > this.maxDistanceKm
    const nearest = this.pending[this.pending.length - 1]
    if (nearest !== undefined && (nearest.distanceKm < bound || beyondRange)) {
      this.settled.push(nearest)
      this.pending.pop()
      return true
    }
    if (gap === Number.POSITIVE_INFINITY || beyondRange) return false
    const visited = southGap <= northGap ? this.south-- : this.north++
    const candidate = this.sorted[visited]
    if (candidate === undefined) return true
    const distance = distanceKm(this.customer, candidate.point)
    if (distance <= this.maxDistanceKm) this.enqueue({ code: candidate.code, distanceKm: distance })
    return true
  }

  /** Into `pending`, kept farthest first (so the nearest is popped). */
  private enqueue(ranked: RankedCandidate): void {
    const pending = this.pending
    let low = 0
    let high = pending.length
    while (low < high) {
      const middle = (low + high) >>> 1
      const other = pending[middle]
      if (other !== undefined && byDistanceThenCode(other, ranked) > 0) low = middle + 1
      else high = middle
    }
    pending.splice(low, 0, ranked)
  }
}
