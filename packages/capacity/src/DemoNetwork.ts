import type { NetworkDocumentInput } from "./Network.ts"

/**
 * The demo network loaded into an empty database: Lima, Peru. Two distribution centres (Lurín,
 * Callao), one cross-dock hub (Santa Anita), thirteen stores, three suppliers, two sellers, and
 * seven delivery zones keyed by real INEI ubigeo district codes. SKU-SMARTWATCH-GT is held by a few
 * stores in different amounts (and by CD Lurín), for variant B's origin search.
 */

type NodeInput = NetworkDocumentInput["nodes"][number]
type RouteInput = NetworkDocumentInput["routes"][number]
type ZoneInput = NetworkDocumentInput["zones"][number]
type StockInput = NonNullable<NetworkDocumentInput["stock"]>[number]

const PERU_HOLIDAYS = [
  "2026-01-01", "2026-04-02", "2026-04-03", "2026-05-01", "2026-06-07", "2026-06-29", "2026-07-23",
  "2026-07-28", "2026-07-29", "2026-08-06", "2026-08-30", "2026-10-08", "2026-11-01", "2026-12-08",
  "2026-12-09", "2026-12-25",
  "2027-01-01", "2027-03-25", "2027-03-26", "2027-05-01", "2027-06-07", "2027-06-29", "2027-07-23",
  "2027-07-28", "2027-07-29", "2027-08-06", "2027-08-30", "2027-10-08", "2027-11-01", "2027-12-08",
  "2027-12-09", "2027-12-25"
]

const MON_SAT = ["MON", "TUE", "WED", "THU", "FRI", "SAT"] as const
const MON_FRI = ["MON", "TUE", "WED", "THU", "FRI"] as const
const EVERY_DAY = ["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"] as const

interface Place {
  readonly address: string
  readonly district: string
  readonly ubigeo: string
  readonly latitude: number
  readonly longitude: number
  readonly province?: string
}

const node = (
  code: string,
  type: NodeInput["type"],
  name: string,
  shortName: string,
  place: Place,
  phone: string,
  rules: Pick<NodeInput, "pickingDays" | "pickingCutoff" | "processingDays" | "pickingCapacity" | "dispatchCapacity">,
  entity: Pick<NodeInput, "platformWarehouseId" | "platformDockId" | "pickupPointId" | "deliveryTime"> = {}
): NodeInput => ({
  code,
  type,
  name,
  shortName,
  address: {
    address: place.address,
    district: place.district,
    province: place.province ?? "Lima",
    ubigeoCode: place.ubigeo,
    country: "PE",
    latitude: place.latitude,
    longitude: place.longitude
  },
  contact: { phone },
  timeZone: "America/Lima",
  holidays: PERU_HOLIDAYS,
  ...rules,
  ...entity
})

const CD_RULES = {
  pickingDays: MON_SAT,
  pickingCutoff: "15:00",
  processingDays: 0,
  pickingCapacity: { NORMAL: 4000, EXPRESS: 600 },
  dispatchCapacity: { NORMAL: 5000, EXPRESS: 800 }
}

const STORE_RULES = {
  pickingDays: EVERY_DAY,
  pickingCutoff: "14:00",
  processingDays: 0,
  pickingCapacity: 120,
  dispatchCapacity: 150
}

const stores: ReadonlyArray<readonly [string, string, Place]> = [
  ["TD-MIRAFLORES", "Miraflores", { address: "Av. José Larco 1080", district: "Miraflores", ubigeo: "150122", latitude: -12.1276, longitude: -77.0297 }],
  ["TD-SAN-ISIDRO", "San Isidro", { address: "Av. Camino Real 1250", district: "San Isidro", ubigeo: "150131", latitude: -12.0977, longitude: -77.0365 }],
  ["TD-SURCO", "Surco", { address: "Av. Primavera 1490", district: "Santiago de Surco", ubigeo: "150140", latitude: -12.1118, longitude: -76.9912 }],
  ["TD-LA-MOLINA", "La Molina", { address: "Av. Raúl Ferrero 1300", district: "La Molina", ubigeo: "150114", latitude: -12.0846, longitude: -76.9230 }],
  ["TD-SAN-MIGUEL", "San Miguel", { address: "Av. La Marina 2000", district: "San Miguel", ubigeo: "150136", latitude: -12.0773, longitude: -77.0830 }],
  ["TD-JESUS-MARIA", "Jesús María", { address: "Av. Salaverry 2370", district: "Jesús María", ubigeo: "150113", latitude: -12.0858, longitude: -77.0507 }],
  ["TD-LOS-OLIVOS", "Los Olivos", { address: "Av. Alfredo Mendiola 3698", district: "Los Olivos", ubigeo: "150117", latitude: -11.9927, longitude: -77.0616 }],
  ["TD-SJL", "San Juan de Lurigancho", { address: "Av. Próceres de la Independencia 1632", district: "San Juan de Lurigancho", ubigeo: "150132", latitude: -11.9931, longitude: -77.0069 }],
  ["TD-ATE", "Ate", { address: "Av. Nicolás Ayllón 4770", district: "Ate", ubigeo: "150103", latitude: -12.0560, longitude: -76.9370 }],
  ["TD-CHORRILLOS", "Chorrillos", { address: "Av. Defensores del Morro 1520", district: "Chorrillos", ubigeo: "150108", latitude: -12.1769, longitude: -77.0139 }],
  ["TD-SAN-BORJA", "San Borja", { address: "Av. Aviación 3200", district: "San Borja", ubigeo: "150130", latitude: -12.0960, longitude: -77.0010 }],
  ["TD-VES", "Villa El Salvador", { address: "Av. Revolución 1200", district: "Villa El Salvador", ubigeo: "150142", latitude: -12.2130, longitude: -76.9370 }],
  ["TD-CALLAO", "Callao", { address: "Av. Sáenz Peña 250", district: "Callao", ubigeo: "070101", latitude: -12.0566, longitude: -77.1181, province: "Callao" }]
]

const nodes: ReadonlyArray<NodeInput> = [
  node("CD-LURIN", "CD", "Centro de Distribución Lurín", "CD Lurín",
    { address: "Antigua Panamericana Sur km 35.5", district: "Lurín", ubigeo: "150119", latitude: -12.2747, longitude: -76.8705 },
    "+51 1 611 2000", CD_RULES, { platformWarehouseId: "WH-LURIN", platformDockId: "DOCK-LURIN-01" }),
  node("CD-CALLAO", "CD", "Centro de Distribución Callao", "CD Callao",
    { address: "Av. Elmer Faucett 3350", district: "Callao", ubigeo: "070101", latitude: -12.0432, longitude: -77.1120, province: "Callao" },
    "+51 1 611 3000", CD_RULES, { platformWarehouseId: "WH-CALLAO", platformDockId: "DOCK-CALLAO-01" }),
  node("HUB-SANTA-ANITA", "HUB", "Cross-dock Santa Anita", "Hub Santa Anita",
    { address: "Carretera Central km 3.5", district: "Santa Anita", ubigeo: "150137", latitude: -12.0431, longitude: -76.9707 },
    "+51 1 611 4000",
    { pickingDays: MON_SAT, pickingCutoff: "22:00", processingDays: 0, pickingCapacity: 0, dispatchCapacity: 6000 }),
  ...stores.map(([code, short, place], i) =>
    node(code, "TD", `Tienda ${short}`, short, place, `+51 1 612 ${String(1000 + i)}`, STORE_RULES, {
      platformWarehouseId: `WH-${code}`,
      pickupPointId: `PP-${code}`,
      deliveryTime: "10:00-21:00"
    })),
  node("PRV-GLORIA", "PRV", "Gloria S.A. (lácteos)", "Gloria",
    { address: "Av. República de Panamá 2461", district: "Ate", ubigeo: "150103", latitude: -12.0585, longitude: -76.9602 },
    "+51 1 470 7170",
    { pickingDays: MON_FRI, pickingCutoff: "12:00", processingDays: 1, pickingCapacity: 2000, dispatchCapacity: 2000 }),
  node("PRV-TEXTIL-GAMARRA", "PRV", "Textil Gamarra S.A.C.", "Gamarra",
    { address: "Jr. Gamarra 1010", district: "La Victoria", ubigeo: "150115", latitude: -12.0667, longitude: -77.0139 },
    "+51 1 324 5566",
    { pickingDays: MON_SAT, pickingCutoff: "13:00", processingDays: 1, pickingCapacity: 500, dispatchCapacity: 500 }),
  node("PRV-ELECTRO-IMPORT", "PRV", "Electro Import del Callao S.A.", "Electro Import",
    { address: "Av. Argentina 3093", district: "Callao", ubigeo: "070101", latitude: -12.0470, longitude: -77.0960, province: "Callao" },
    "+51 1 451 8800",
    { pickingDays: MON_FRI, pickingCutoff: "11:00", processingDays: 2, pickingCapacity: 300, dispatchCapacity: 300 }),
  node("SELLER-MUEBLES-VMT", "SELLER", "Muebles Villa María E.I.R.L.", "Muebles VMT",
    { address: "Av. Salvador Allende 450", district: "Villa María del Triunfo", ubigeo: "150143", latitude: -12.1610, longitude: -76.9400 },
    "+51 987 654 321",
    { pickingDays: MON_FRI, pickingCutoff: "10:00", processingDays: 1, pickingCapacity: 40, dispatchCapacity: 40 }),
  node("SELLER-TECNO-LINCE", "SELLER", "Tecno Lince S.A.C.", "Tecno Lince",
    { address: "Av. Arequipa 2450", district: "Lince", ubigeo: "150116", latitude: -12.0860, longitude: -77.0340 },
    "+51 986 111 222",
    { pickingDays: MON_SAT, pickingCutoff: "16:00", processingDays: 0, pickingCapacity: 150, dispatchCapacity: 150 })
]

const windows = (morning: number, afternoon: number) => [
  { code: "09:00-13:00", start: "09:00", end: "13:00", capacity: morning },
  { code: "14:00-18:00", start: "14:00", end: "18:00", capacity: afternoon }
] as const

const zones: ReadonlyArray<ZoneInput> = [
  { code: "LIMA-MODERNA", name: "Lima Moderna", deliveryDays: EVERY_DAY, windows: windows(300, 300),
    ubigeos: ["150122", "150131", "150130", "150141", "150104", "150116", "150113", "150120", "150121", "150136"] },
  { code: "LIMA-CENTRO", name: "Lima Centro", deliveryDays: MON_SAT, windows: windows(200, 200),
    ubigeos: ["150101", "150105", "150115", "150128", "150134", "150111"] },
  { code: "LIMA-ESTE", name: "Lima Este", deliveryDays: MON_SAT, windows: windows(250, 250),
    ubigeos: ["150103", "150114", "150137", "150132", "150118", "150107", "150109"] },
  { code: "LIMA-NORTE", name: "Lima Norte", deliveryDays: MON_SAT, windows: windows(250, 250),
    ubigeos: ["150117", "150135", "150110", "150112", "150125", "150106", "150102", "150139"] },
  { code: "LIMA-SUR", name: "Lima Sur", deliveryDays: MON_SAT, windows: windows(250, 250),
    ubigeos: ["150140", "150108", "150133", "150142", "150143", "150119", "150123"] },
  { code: "CALLAO", name: "Callao", deliveryDays: MON_SAT, windows: windows(200, 200),
    ubigeos: ["070101", "070102", "070103", "070104", "070105", "070106", "070107"] },
  { code: "BALNEARIOS-SUR", name: "Balnearios del Sur", deliveryDays: ["TUE", "FRI"], windows: windows(40, 40),
    ubigeos: ["150126", "150127", "150129", "150138", "150124"], blockedDates: ["2026-12-25", "2027-01-01"] }
]

type Lead = RouteInput["leadTime"]
const business = (days: number): Lead => ({ days, unit: "BUSINESS_DAYS" })
const calendar = (days: number): Lead => ({ days, unit: "CALENDAR_DAYS" })

const route = (
  id: string,
  source: string,
  target: RouteInput["target"],
  rest: Omit<RouteInput, "id" | "source" | "target">
): RouteInput => ({ id, source, target, ...rest })

const toZones = (...zoneCodes: [string, ...Array<string>]): RouteInput["target"] => ({ kind: "ZONES", zones: zoneCodes })
const toNode = (code: string): RouteInput["target"] => ({ kind: "NODE", node: code })

const BOTH_MODES = ["HOME_DELIVERY", "STORE_WITHDRAWAL"] as const

const routes: ReadonlyArray<RouteInput> = [
  route("R-LURIN-SUR-N", "CD-LURIN", toZones("LIMA-SUR", "LIMA-MODERNA"), {
    dispatchTypes: ["NORMAL"], deliveryModes: ["HOME_DELIVERY"], departureDays: MON_SAT, departureCutoff: "18:00",
    leadTime: business(1), capacityPerDeparture: 800, cost: { base: 9.9, perKg: 0.5 } }),
  route("R-LURIN-SUR-E", "CD-LURIN", toZones("LIMA-SUR", "LIMA-MODERNA"), {
    dispatchTypes: ["EXPRESS"], deliveryModes: ["HOME_DELIVERY"], departureDays: EVERY_DAY, departureCutoff: "16:00",
    leadTime: calendar(0), capacityPerDeparture: 150, cost: { base: 19.9, perKg: 0.8 } }),
  route("R-LURIN-BALNEARIOS", "CD-LURIN", toZones("BALNEARIOS-SUR"), {
    dispatchTypes: ["NORMAL"], deliveryModes: ["HOME_DELIVERY"], departureDays: ["MON", "THU"], departureCutoff: "16:00",
    leadTime: calendar(1), capacityPerDeparture: 100, cost: { base: 14.9, perKg: 0.6 } }),
  route("R-LURIN-HUB", "CD-LURIN", toNode("HUB-SANTA-ANITA"), {
    dispatchTypes: ["NORMAL", "EXPRESS"], deliveryModes: BOTH_MODES, departureDays: MON_SAT, departureCutoff: "20:00",
    leadTime: calendar(1), capacityPerDeparture: 3000, cost: { base: 2, perKg: 0.1 } }),
  route("R-CALLAO-NORTE-N", "CD-CALLAO", toZones("LIMA-NORTE", "CALLAO", "LIMA-CENTRO"), {
    dispatchTypes: ["NORMAL"], deliveryModes: ["HOME_DELIVERY"], departureDays: MON_SAT, departureCutoff: "18:00",
    leadTime: business(1), capacityPerDeparture: 800, cost: { base: 9.9, perKg: 0.5 } }),
  route("R-CALLAO-NORTE-E", "CD-CALLAO", toZones("LIMA-NORTE", "CALLAO"), {
    dispatchTypes: ["EXPRESS"], deliveryModes: ["HOME_DELIVERY"], departureDays: EVERY_DAY, departureCutoff: "16:00",
    leadTime: calendar(0), capacityPerDeparture: 150, cost: { base: 19.9, perKg: 0.8 } }),
  route("R-CALLAO-HUB", "CD-CALLAO", toNode("HUB-SANTA-ANITA"), {
    dispatchTypes: ["NORMAL", "EXPRESS"], deliveryModes: BOTH_MODES, departureDays: MON_SAT, departureCutoff: "20:00",
    leadTime: calendar(1), capacityPerDeparture: 3000, cost: { base: 2, perKg: 0.1 } }),
  route("R-HUB-ESTE", "HUB-SANTA-ANITA", toZones("LIMA-ESTE", "LIMA-CENTRO"), {
    dispatchTypes: ["NORMAL", "EXPRESS"], deliveryModes: ["HOME_DELIVERY"], departureDays: MON_SAT, departureCutoff: "10:00",
    leadTime: calendar(0), capacityPerDeparture: 1200, cost: { base: 7.9, perKg: 0.4 } }),
  route("R-HUB-MODERNA", "HUB-SANTA-ANITA", toZones("LIMA-MODERNA"), {
    dispatchTypes: ["NORMAL"], deliveryModes: ["HOME_DELIVERY"], departureDays: MON_SAT, departureCutoff: "10:00",
    leadTime: calendar(1), capacityPerDeparture: 600, cost: { base: 8.9, perKg: 0.4 } }),
  ...stores.map(([code]) =>
    route(`R-HUB-${code}`, "HUB-SANTA-ANITA", toNode(code), {
      dispatchTypes: ["NORMAL"], deliveryModes: ["STORE_WITHDRAWAL"], departureDays: ["MON", "WED", "FRI"],
      departureCutoff: "08:00", leadTime: calendar(1), capacityPerDeparture: 400, cost: { base: 0, perKg: 0.05 } })),
  route("R-TD-MIRAFLORES-E", "TD-MIRAFLORES", toZones("LIMA-MODERNA"), {
    dispatchTypes: ["EXPRESS"], deliveryModes: ["HOME_DELIVERY"], departureDays: EVERY_DAY, departureCutoff: "17:00",
    leadTime: calendar(0), capacityPerDeparture: 40, cost: { base: 12.9, perKg: 0.5 } }),
  route("R-TD-SURCO-E", "TD-SURCO", toZones("LIMA-SUR", "LIMA-MODERNA"), {
    dispatchTypes: ["EXPRESS"], deliveryModes: ["HOME_DELIVERY"], departureDays: EVERY_DAY, departureCutoff: "17:00",
    leadTime: calendar(0), capacityPerDeparture: 40, cost: { base: 12.9, perKg: 0.5 } }),
  route("R-GLORIA-LURIN", "PRV-GLORIA", toNode("CD-LURIN"), {
    dispatchTypes: ["NORMAL"], deliveryModes: BOTH_MODES, departureDays: ["MON", "WED", "FRI"], departureCutoff: "09:00",
    leadTime: business(1), capacityPerDeparture: 1500, cost: { base: 3, perKg: 0.05 } }),
  route("R-GAMARRA-HUB", "PRV-TEXTIL-GAMARRA", toNode("HUB-SANTA-ANITA"), {
    dispatchTypes: ["NORMAL"], deliveryModes: BOTH_MODES, departureDays: ["TUE", "THU", "SAT"], departureCutoff: "09:00",
    leadTime: calendar(1), capacityPerDeparture: 400, cost: { base: 2.5, perKg: 0.05 } }),
  route("R-ELECTRO-CALLAO", "PRV-ELECTRO-IMPORT", toNode("CD-CALLAO"), {
    dispatchTypes: ["NORMAL"], deliveryModes: BOTH_MODES, departureDays: MON_FRI, departureCutoff: "09:00",
    leadTime: business(2), capacityPerDeparture: 250, cost: { base: 4, perKg: 0.08 } }),
  route("R-MUEBLES-HUB", "SELLER-MUEBLES-VMT", toNode("HUB-SANTA-ANITA"), {
    dispatchTypes: ["NORMAL"], deliveryModes: BOTH_MODES, departureDays: ["TUE", "THU"], departureCutoff: "09:00",
    leadTime: business(1), capacityPerDeparture: 30, cost: { base: 15, perKg: 0.3 } }),
  route("R-TECNO-HUB", "SELLER-TECNO-LINCE", toNode("HUB-SANTA-ANITA"), {
    dispatchTypes: ["NORMAL", "EXPRESS"], deliveryModes: BOTH_MODES, departureDays: MON_SAT, departureCutoff: "17:00",
    leadTime: calendar(1), capacityPerDeparture: 120, cost: { base: 5, perKg: 0.1 } })
]

const stockAt = (nodeCode: string, units: ReadonlyArray<readonly [string, number]>): ReadonlyArray<StockInput> =>
  units.map(([sku, count]) => ({ node: nodeCode, sku, units: count }))

const CD_SKUS: ReadonlyArray<readonly [string, number]> = [
  ["SKU-TV-55-4K", 120], ["SKU-REFRI-300L", 45], ["SKU-LAVADORA-18KG", 60], ["SKU-LAPTOP-14", 200],
  ["SKU-CELULAR-A54", 900], ["SKU-AUDIFONOS-BT", 1500], ["SKU-COLCHON-2P", 80], ["SKU-SILLA-OFICINA", 140]
]

const stock: ReadonlyArray<StockInput> = [
  ...stockAt("CD-LURIN", CD_SKUS),
  ...stockAt("CD-CALLAO", CD_SKUS),
  ...stores.flatMap(([code]) =>
    stockAt(code, [["SKU-CELULAR-A54", 25], ["SKU-AUDIFONOS-BT", 60], ["SKU-LAPTOP-14", 8]])),
  // A SKU stores hold in different amounts, for origin search by distance (variant B).
  ...stockAt("TD-MIRAFLORES", [["SKU-SMARTWATCH-GT", 3]]),
  ...stockAt("TD-SURCO", [["SKU-SMARTWATCH-GT", 20]]),
  ...stockAt("TD-SAN-BORJA", [["SKU-SMARTWATCH-GT", 6]]),
  ...stockAt("TD-LA-MOLINA", [["SKU-SMARTWATCH-GT", 15]]),
  ...stockAt("CD-LURIN", [["SKU-SMARTWATCH-GT", 40]]),
  ...stockAt("PRV-GLORIA", [["SKU-LECHE-GLORIA-6PK", 5000], ["SKU-YOGURT-1L", 3000]]),
  ...stockAt("PRV-TEXTIL-GAMARRA", [["SKU-POLO-ALGODON", 2500], ["SKU-JEAN-CLASICO", 1200]]),
  ...stockAt("PRV-ELECTRO-IMPORT", [["SKU-MICROONDAS-20L", 300], ["SKU-LICUADORA-1.5L", 450]]),
  ...stockAt("SELLER-MUEBLES-VMT", [["SKU-ROPERO-3P", 25], ["SKU-MESA-COMEDOR-6", 12]]),
  ...stockAt("SELLER-TECNO-LINCE", [["SKU-MOUSE-GAMER", 300], ["SKU-TECLADO-MEC", 180]])
]

export const demoNetwork: NetworkDocumentInput = { nodes, routes, zones, stock }
