/** A point on Earth in decimal degrees. */
export interface GeoPoint {
  readonly latitude: number
  readonly longitude: number
}

/** Mean Earth radius (IUGG), km. */
export const EARTH_RADIUS_KM = 6371.0088
const RADIANS = Math.PI / 180

/** Great-circle distance in km (haversine formula; error under 0.5 % against the ellipsoid). */
export const distanceKm = (a: GeoPoint, b: GeoPoint): number => {
  const dLat = (b.latitude - a.latitude) * RADIANS
  const dLon = (b.longitude - a.longitude) * RADIANS
  const sinLat = Math.sin(dLat / 2)
  const sinLon = Math.sin(dLon / 2)
  const h = sinLat * sinLat + Math.cos(a.latitude * RADIANS) * Math.cos(b.latitude * RADIANS) * sinLon * sinLon
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)))
}
