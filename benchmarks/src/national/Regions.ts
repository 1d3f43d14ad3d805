/**
 * The regions of the national network: one per Peruvian department (its INEI code, the city that
 * holds its stores and hub, the city's coordinates) and a weight for how much of the network it
 * gets (stores, zones, ubigeos), roughly its population in hundreds of thousands. Lima's weight
 * counts Lima and Callao; the demo network already covers Lima's province 01 and Callao.
 */
export interface Region {
  /** Upper-case ASCII, in node and zone codes: `TD-AREQUIPA-001`, `HUB-AREQUIPA`. */
  readonly code: string
  readonly name: string
  /** The department's two-digit INEI code: the first two digits of its ubigeos. */
  readonly department: string
  readonly latitude: number
  readonly longitude: number
  readonly weight: number
  /** Spread of its stores around the city centre, km. */
  readonly radiusKm: number
}

export const LIMA: Region = {
  code: "LIMA", name: "Lima", department: "15", latitude: -12.0464, longitude: -77.0428, weight: 100, radiusKm: 14
}

/** Every other department, in the order regional CDs are placed (largest markets first). */
export const PROVINCES: ReadonlyArray<Region> = [
  { code: "AREQUIPA", name: "Arequipa", department: "04", latitude: -16.3989, longitude: -71.535, weight: 15, radiusKm: 6 },
  { code: "TRUJILLO", name: "Trujillo", department: "13", latitude: -8.1116, longitude: -79.0288, weight: 19, radiusKm: 6 },
  { code: "CHICLAYO", name: "Chiclayo", department: "14", latitude: -6.7714, longitude: -79.8409, weight: 13, radiusKm: 5 },
  { code: "PIURA", name: "Piura", department: "20", latitude: -5.1945, longitude: -80.6328, weight: 20, radiusKm: 5 },
  { code: "CUSCO", name: "Cusco", department: "08", latitude: -13.532, longitude: -71.9675, weight: 13, radiusKm: 4 },
  { code: "HUANCAYO", name: "Huancayo", department: "12", latitude: -12.0651, longitude: -75.2049, weight: 13, radiusKm: 4 },
  { code: "IQUITOS", name: "Iquitos", department: "16", latitude: -3.7491, longitude: -73.2538, weight: 10, radiusKm: 4 },
  { code: "JULIACA", name: "Juliaca", department: "21", latitude: -15.4997, longitude: -70.1333, weight: 12, radiusKm: 4 },
  { code: "ICA", name: "Ica", department: "11", latitude: -14.0678, longitude: -75.7286, weight: 9, radiusKm: 4 },
  { code: "CHIMBOTE", name: "Chimbote", department: "02", latitude: -9.0745, longitude: -78.5936, weight: 12, radiusKm: 4 },
  { code: "CAJAMARCA", name: "Cajamarca", department: "06", latitude: -7.1638, longitude: -78.5003, weight: 14, radiusKm: 4 },
  { code: "TARAPOTO", name: "Tarapoto", department: "22", latitude: -6.4825, longitude: -76.3658, weight: 9, radiusKm: 3 },
  { code: "HUANUCO", name: "Huánuco", department: "10", latitude: -9.9306, longitude: -76.2422, weight: 7, radiusKm: 3 },
  { code: "AYACUCHO", name: "Ayacucho", department: "05", latitude: -13.1588, longitude: -74.2239, weight: 6, radiusKm: 3 },
  { code: "PUCALLPA", name: "Pucallpa", department: "25", latitude: -8.3791, longitude: -74.5539, weight: 5, radiusKm: 3 },
  { code: "TACNA", name: "Tacna", department: "23", latitude: -18.0146, longitude: -70.2536, weight: 4, radiusKm: 3 },
  { code: "CHACHAPOYAS", name: "Chachapoyas", department: "01", latitude: -6.2317, longitude: -77.869, weight: 4, radiusKm: 2 },
  { code: "ABANCAY", name: "Abancay", department: "03", latitude: -13.6339, longitude: -72.8814, weight: 4, radiusKm: 2 },
  { code: "HUANCAVELICA", name: "Huancavelica", department: "09", latitude: -12.7826, longitude: -74.9727, weight: 3, radiusKm: 2 },
  { code: "CERRO-DE-PASCO", name: "Cerro de Pasco", department: "19", latitude: -10.6864, longitude: -76.2625, weight: 3, radiusKm: 2 },
  { code: "TUMBES", name: "Tumbes", department: "24", latitude: -3.5669, longitude: -80.4515, weight: 2, radiusKm: 2 },
  { code: "MOQUEGUA", name: "Moquegua", department: "18", latitude: -17.1956, longitude: -70.9353, weight: 2, radiusKm: 2 },
  { code: "PUERTO-MALDONADO", name: "Puerto Maldonado", department: "17", latitude: -12.5933, longitude: -69.1891, weight: 2, radiusKm: 2 }
]

export const REGIONS: ReadonlyArray<Region> = [LIMA, ...PROVINCES]

/**
 * `total` split over the regions by `weightOf` (default: their weight), each getting at least
 * `atLeast` (largest remainders first; ties by region order), so the parts add up to `total` exactly.
 */
export const allocate = (
  regions: ReadonlyArray<Region>,
  total: number,
  atLeast: number,
  weightOf: (region: Region) => number = (region) => region.weight
): ReadonlyArray<number> => {
  const floor = regions.length * atLeast
  if (total < floor) throw new Error(`cannot give ${regions.length} regions at least ${atLeast} of ${total}`)
  const weight = regions.reduce((sum, region) => sum + weightOf(region), 0)
  const shares = regions.map((region) => ((total - floor) * weightOf(region)) / weight)
  const parts = shares.map((share) => atLeast + Math.floor(share))
  let left = total - parts.reduce((sum, part) => sum + part, 0)
  const byRemainder = shares.map((share, i) => ({ i, rest: share - Math.floor(share) })).sort((a, b) => b.rest - a.rest || a.i - b.i)
  for (const { i } of byRemainder) {
    if (left <= 0) break
    parts[i] = (parts[i] ?? 0) + 1
    left--
  }
  return parts
}
