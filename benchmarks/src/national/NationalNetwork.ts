import { demoNetwork, distanceKm, type NetworkDocumentInput } from "@retail/capacity"
import { allocate, LIMA, PROVINCES, type Region, REGIONS } from "./Regions.ts"

type NodeInput = NetworkDocumentInput["nodes"][number]
type RouteInput = NetworkDocumentInput["routes"][number]
type ZoneInput = NetworkDocumentInput["zones"][number]

/** One stock row as the network document's `stock` holds it (and as a stock feed sends it). */
export interface StockRow {
  readonly node: string
  readonly sku: string
  readonly units: number
}

/** The shape of a national network; every count includes what it takes over from the demo network. */
export interface NationalOptions {
  /** Same seed, same options: the same network and stock, row for row. */
  readonly seed: number
  /** Distribution centres: the demo's two (Lurín, Callao) and one in each of the largest other regions. */
  readonly cds: number
  /** Stores (TD): every one a pickup point and an origin for variant B's search. */
  readonly stores: number
  readonly zones: number
  readonly ubigeos: number
  /** SKUs of the catalogue, `SKU-000001` on (the demo's named SKUs besides). */
  readonly skus: number
  /** Share of the catalogue a store carries (its most popular SKUs more likely). */
  readonly storeShare: number
  /** Share of the catalogue CD Lurín and CD Callao carry. */
  readonly mainCdShare: number
  /** Share of the catalogue a regional CD carries. */
  readonly regionalCdShare: number
}

export const nationalDefaults: NationalOptions = {
  seed: 25,
  cds: 10,
  stores: 400,
  zones: 60,
  ubigeos: 1900,
  skus: 100_000,
  storeShare: 0.06,
  mainCdShare: 0.85,
  regionalCdShare: 0.35
}

export interface NationalShape {
  readonly nodes: number
  readonly cds: number
  readonly hubs: number
  readonly stores: number
  readonly suppliersAndSellers: number
  readonly routes: number
  readonly zones: number
  readonly ubigeos: number
  readonly skus: number
}

export interface NationalNetwork {
  readonly options: NationalOptions
  /** The network document without stock (`stock: []`): PUT as is, or with `withStock`. */
  readonly network: NetworkDocumentInput
  readonly shape: NationalShape
  /** Every stock row (the demo network's first), generated anew on each call, always in the same order: node by node. */
  readonly stockRows: () => Generator<StockRow>
  /** SKU codes by popularity, most popular first (stores carry these more often). */
  readonly skuCodes: ReadonlyArray<string>
}

/** mulberry32: a small seeded generator, enough for test data (not for anything secret). */
export const seededRandom = (seed: number): (() => number) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const MON_SAT = ["MON", "TUE", "WED", "THU", "FRI", "SAT"] as const
const EVERY_DAY = ["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"] as const
const BOTH_MODES = ["HOME_DELIVERY", "STORE_WITHDRAWAL"] as const
const KM_PER_DEGREE = 111.195

const demoNodes = demoNetwork.nodes
const holidays = demoNodes[0]?.holidays ?? []
const demoUbigeos = demoNetwork.zones.flatMap((zone) => zone.ubigeos)
/** The Lima metropolitan districts of the demo zones (LIMA-*): where Lima's new stores are. */
const limaMetroUbigeos = demoNetwork.zones.filter((zone) => zone.code.startsWith("LIMA-")).flatMap((zone) => zone.ubigeos)

const pad = (n: number, width: number) => String(n).padStart(width, "0")

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits

const windows = (morning: number, afternoon: number) => [
  { code: "09:00-13:00", start: "09:00", end: "13:00", capacity: morning },
  { code: "14:00-18:00", start: "14:00", end: "18:00", capacity: afternoon }
]

interface Point {
  readonly latitude: number
  readonly longitude: number
}

/** A point within `radiusKm` of `centre`, uniform over the disc. */
const scatter = (random: () => number, centre: Point, radiusKm: number): Point => {
  const r = radiusKm * Math.sqrt(random())
  const angle = 2 * Math.PI * random()
  return {
    latitude: round(centre.latitude + (r * Math.cos(angle)) / KM_PER_DEGREE, 5),
    longitude: round(centre.longitude + (r * Math.sin(angle)) / (KM_PER_DEGREE * Math.cos((centre.latitude * Math.PI) / 180)), 5)
  }
}

/** A phone number of its own for each node code (FNV-1a of the code). */
const phoneOf = (code: string): string => {
  let hash = 0x811c9dc5
  for (let i = 0; i < code.length; i++) hash = Math.imul(hash ^ code.charCodeAt(i), 0x01000193) >>> 0
  return `+51 1 7${pad(hash % 1_000_000, 6)}`
}

const nodeOf = (
  code: string,
  type: NodeInput["type"],
  name: string,
  shortName: string,
  region: Region,
  ubigeo: string,
  point: Point,
  rules: Pick<NodeInput, "pickingDays" | "pickingCutoff" | "processingDays" | "pickingCapacity" | "dispatchCapacity">,
  entity: Pick<NodeInput, "platformWarehouseId" | "platformDockId" | "pickupPointId" | "deliveryTime"> = {}
): NodeInput => ({
  code,
  type,
  name,
  shortName,
  address: {
    address: `${name}, ${region.name}`,
    district: region.name,
    province: region.name,
    ubigeoCode: ubigeo,
    country: "PE",
    latitude: point.latitude,
    longitude: point.longitude
  },
  contact: { phone: phoneOf(code) },
  timeZone: "America/Lima",
  holidays,
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
const STORE_RULES = { pickingDays: EVERY_DAY, pickingCutoff: "14:00", processingDays: 0, pickingCapacity: 120, dispatchCapacity: 150 }
const HUB_RULES = { pickingDays: MON_SAT, pickingCutoff: "22:00", processingDays: 0, pickingCapacity: 0, dispatchCapacity: 6000 }

const route = (id: string, source: string, target: RouteInput["target"], rest: Omit<RouteInput, "id" | "source" | "target">): RouteInput => ({
  id,
  source,
  target,
  ...rest
})
const toNode = (node: string): RouteInput["target"] => ({ kind: "NODE", node })
const toZones = (zones: ReadonlyArray<string>): RouteInput["target"] => {
  const [first, ...rest] = zones
  if (first === undefined) throw new Error("a last-mile route needs a zone")
  return { kind: "ZONES", zones: [first, ...rest] }
}
const calendarDays = (days: number) => ({ days, unit: "CALENDAR_DAYS" as const })

/** Line-haul days by road distance: a day per 450 km, at least one. */
const lineHaulDays = (km: number) => Math.max(1, Math.round(km / 450))

interface RegionPlan {
  readonly region: Region
  readonly hub: string
  readonly cd: string | undefined
  readonly zones: ReadonlyArray<ZoneInput>
  readonly stores: ReadonlyArray<NodeInput>
}

/**
 * A national network around the demo network (which it contains whole, so the README's example
 * requests are answered): regional CDs, a hub per region, stores spread around each region's city,
 * zones of generated ubigeos, and the routes between them. See benchmarks/README.md, "The national network".
 */
export const nationalNetwork = (overrides: Partial<NationalOptions> = {}): NationalNetwork => {
  const options: NationalOptions = { ...nationalDefaults, ...overrides }
  const random = seededRandom(options.seed)
  const demoCds = demoNodes.filter((node) => node.type === "CD").length
  const demoStores = demoNodes.filter((node) => node.type === "TD").length
  const regionalCds = options.cds - demoCds
  if (regionalCds < 0 || regionalCds > PROVINCES.length) throw new Error(`cds must be between ${demoCds} and ${demoCds + PROVINCES.length}`)

  const storesByRegion = allocate(REGIONS, options.stores - demoStores, 1)
  // Districts are spread over every department whatever its population; zones follow demand less than stores do.
  const zonesByRegion = allocate(REGIONS, options.zones - demoNetwork.zones.length, 1, (region) => Math.sqrt(region.weight))
  const ubigeosByRegion = allocate(REGIONS, options.ubigeos - demoUbigeos.length, 4, () => 1)

  const cdNodes: Array<NodeInput> = PROVINCES.slice(0, regionalCds).map((region) =>
    nodeOf(`CD-${region.code}`, "CD", `Centro de Distribución ${region.name}`, `CD ${region.name}`, region,
      `${region.department}0101`, scatter(random, region, 10), CD_RULES,
      { platformWarehouseId: `WH-${region.code}`, platformDockId: `DOCK-${region.code}-01` })
  )
  const cdPoints = [...demoNodes.filter((node) => node.type === "CD"), ...cdNodes].map((node) => ({ code: node.code, point: node.address }))

  const plans: Array<RegionPlan> = REGIONS.map((region, r) => {
    const isLima = region === LIMA
    // Lima's new ubigeos are its provinces beyond 01 (the demo's metropolitan districts).
    const firstProvince = isLima ? 2 : 1
    const ubigeos = Array.from({ length: ubigeosByRegion[r] ?? 0 }, (_, k) =>
      `${region.department}${pad(firstProvince + Math.floor(k / 30), 2)}${pad(1 + (k % 30), 2)}`)
    const zoneCount = zonesByRegion[r] ?? 1
    const zones: Array<ZoneInput> = Array.from({ length: zoneCount }, (_, z) => {
      const from = Math.floor((z * ubigeos.length) / zoneCount)
      const to = Math.floor(((z + 1) * ubigeos.length) / zoneCount)
      const [first, ...rest] = ubigeos.slice(from, to)
      if (first === undefined) throw new Error(`region ${region.code}: fewer ubigeos than zones`)
      const code = `${isLima ? "LIMA-PROV" : region.code}-${pad(z + 1, 2)}`
      return {
        code,
        name: `${region.name} ${z + 1}`,
        ubigeos: [first, ...rest],
        deliveryDays: z === 0 && !isLima ? EVERY_DAY : MON_SAT,
        windows: windows(z === 0 ? 250 : 60, z === 0 ? 250 : 60),
        blockedDates: []
      }
    })
    const cityUbigeos = isLima ? limaMetroUbigeos : zones[0]?.ubigeos ?? []
    const stores = Array.from({ length: storesByRegion[r] ?? 0 }, (_, s) => {
      const code = `TD-${region.code}-${pad(s + 1, 3)}`
      const ubigeo = cityUbigeos[Math.floor(random() * cityUbigeos.length)] ?? `${region.department}0101`
      return nodeOf(code, "TD", `Tienda ${region.name} ${s + 1}`, `${region.name} ${s + 1}`, region, ubigeo,
        scatter(random, region, region.radiusKm), STORE_RULES,
        { platformWarehouseId: `WH-${code}`, pickupPointId: `PP-${code}`, deliveryTime: "10:00-21:00" })
    })
    const ownCd = cdNodes.find((node) => node.code === `CD-${region.code}`)
    const nearestCd = cdPoints.reduce((best, cd) => distanceKm(cd.point, region) < distanceKm(best.point, region) ? cd : best)
    return {
      region,
      hub: isLima ? "HUB-SANTA-ANITA" : `HUB-${region.code}`,
      cd: isLima ? undefined : ownCd?.code ?? (nearestCd.code === "CD-LURIN" ? undefined : nearestCd.code),
      zones,
      stores
    }
  })

  const hubNodes = plans.filter((plan) => plan.region !== LIMA).map((plan) =>
    nodeOf(plan.hub, "HUB", `Cross-dock ${plan.region.name}`, `Hub ${plan.region.name}`, plan.region,
      `${plan.region.department}0101`, scatter(random, plan.region, 5), HUB_RULES))

  const lurin = demoNodes.find((node) => node.code === "CD-LURIN")?.address ?? LIMA
  const routes: Array<RouteInput> = []
  for (const plan of plans) {
    const { region, hub, zones } = plan
    const zoneCodes = zones.map((zone) => zone.code)
    if (region === LIMA) {
      routes.push(route("R-HUB-LIMA-PROVINCIAS", hub, toZones(zoneCodes), {
        dispatchTypes: ["NORMAL"], deliveryModes: ["HOME_DELIVERY"], departureDays: MON_SAT, departureCutoff: "10:00",
        leadTime: calendarDays(1), capacityPerDeparture: 600, cost: { base: 12.9, perKg: 0.5 } }))
    } else {
      const km = distanceKm(lurin, region)
      routes.push(route(`R-LURIN-${region.code}`, "CD-LURIN", toNode(hub), {
        dispatchTypes: ["NORMAL"], deliveryModes: BOTH_MODES, departureDays: MON_SAT, departureCutoff: "20:00",
        leadTime: calendarDays(lineHaulDays(km)), capacityPerDeparture: 3000, cost: { base: round(10 + km * 0.02, 2), perKg: 0.3 } }))
      if (plan.cd !== undefined) {
        const cdPoint = cdPoints.find((cd) => cd.code === plan.cd)?.point ?? region
        const near = distanceKm(cdPoint, region) < 50
        routes.push(route(`R-${plan.cd}-${region.code}`, plan.cd, toNode(hub), {
          dispatchTypes: ["NORMAL", "EXPRESS"], deliveryModes: BOTH_MODES, departureDays: MON_SAT, departureCutoff: "20:00",
          leadTime: calendarDays(near ? 0 : lineHaulDays(distanceKm(cdPoint, region))), capacityPerDeparture: 3000,
          cost: { base: near ? 2 : 8, perKg: near ? 0.1 : 0.2 } }))
        if (near) {
          routes.push(route(`R-${plan.cd}-CITY-N`, plan.cd, toZones(zoneCodes.slice(0, 1)), {
            dispatchTypes: ["NORMAL"], deliveryModes: ["HOME_DELIVERY"], departureDays: MON_SAT, departureCutoff: "18:00",
            leadTime: { days: 1, unit: "BUSINESS_DAYS" }, capacityPerDeparture: 800, cost: { base: 9.9, perKg: 0.5 } }))
          routes.push(route(`R-${plan.cd}-CITY-E`, plan.cd, toZones(zoneCodes.slice(0, 1)), {
            dispatchTypes: ["EXPRESS"], deliveryModes: ["HOME_DELIVERY"], departureDays: EVERY_DAY, departureCutoff: "16:00",
            leadTime: calendarDays(0), capacityPerDeparture: 150, cost: { base: 19.9, perKg: 0.8 } }))
        }
      }
      routes.push(route(`R-${hub}-CITY`, hub, toZones(zoneCodes.slice(0, 1)), {
        dispatchTypes: ["NORMAL", "EXPRESS"], deliveryModes: ["HOME_DELIVERY"], departureDays: MON_SAT, departureCutoff: "10:00",
        leadTime: calendarDays(0), capacityPerDeparture: 1200, cost: { base: 7.9, perKg: 0.4 } }))
      if (zoneCodes.length > 1) {
        routes.push(route(`R-${hub}-PROVINCES`, hub, toZones(zoneCodes.slice(1)), {
          dispatchTypes: ["NORMAL"], deliveryModes: ["HOME_DELIVERY"], departureDays: MON_SAT, departureCutoff: "10:00",
          leadTime: calendarDays(1), capacityPerDeparture: 400, cost: { base: 12.9, perKg: 0.5 } }))
      }
    }
    plan.stores.forEach((store, s) => {
      routes.push(route(`R-${hub}-${store.code}`, hub, toNode(store.code), {
        dispatchTypes: ["NORMAL"], deliveryModes: ["STORE_WITHDRAWAL"], departureDays: ["MON", "WED", "FRI"],
        departureCutoff: "08:00", leadTime: calendarDays(1), capacityPerDeparture: 400, cost: { base: 0, perKg: 0.05 } }))
      routes.push(route(`R-${hub}-${store.code}-E`, hub, toNode(store.code), {
        dispatchTypes: ["EXPRESS"], deliveryModes: ["STORE_WITHDRAWAL"], departureDays: MON_SAT,
        departureCutoff: "08:00", leadTime: calendarDays(0), capacityPerDeparture: 100, cost: { base: 4.9, perKg: 0.1 } }))
      routes.push(route(`R-${store.code}-${hub}`, store.code, toNode(hub), {
        dispatchTypes: ["NORMAL"], deliveryModes: BOTH_MODES, departureDays: MON_SAT,
        departureCutoff: "18:00", leadTime: calendarDays(1), capacityPerDeparture: 200, cost: { base: 1, perKg: 0.05 } }))
      if (s % 8 === 0) {
        const zone = [...demoNetwork.zones, ...zones].find((candidate) => candidate.ubigeos.includes(store.address.ubigeoCode))
        if (zone !== undefined) {
          routes.push(route(`R-${store.code}-E`, store.code, toZones([zone.code]), {
            dispatchTypes: ["EXPRESS"], deliveryModes: ["HOME_DELIVERY"], departureDays: EVERY_DAY, departureCutoff: "17:00",
            leadTime: calendarDays(0), capacityPerDeparture: 40, cost: { base: 12.9, perKg: 0.5 } }))
        }
      }
    })
  }

  const storeNodes = plans.flatMap((plan) => plan.stores)
  const network: NetworkDocumentInput = {
    nodes: [...demoNodes, ...cdNodes, ...hubNodes, ...storeNodes],
    routes: [...demoNetwork.routes, ...routes],
    zones: [...demoNetwork.zones, ...plans.flatMap((plan) => plan.zones)],
    stock: []
  }
  const skuCodes = Array.from({ length: options.skus }, (_, i) => `SKU-${pad(i + 1, 6)}`)
  const generatedNodes = [...cdNodes, ...storeNodes]
  const demoStock = demoNetwork.stock ?? []
  const mainCds = new Set(["CD-LURIN", "CD-CALLAO"])

  const stockRows = function*(): Generator<StockRow> {
    for (const row of demoStock) yield row
    for (const [n, node] of [...demoNodes.filter((d) => d.type === "CD" || d.type === "TD"), ...generatedNodes].entries()) {
      const draw = seededRandom((options.seed * 7_919 + n * 104_729) >>> 0)
      if (node.type === "CD") {
        const share = mainCds.has(node.code) ? options.mainCdShare : options.regionalCdShare
        // Popular SKUs (low numbers) more likely: on average about `share` of the catalogue.
        for (let i = 0; i < skuCodes.length; i++) {
          if (draw() < Math.min(1, 2 * share * (1 - i / skuCodes.length))) {
            yield { node: node.code, sku: skuCodes[i] ?? "", units: 20 + Math.floor(draw() * 480) }
          }
        }
        continue
      }
      const wanted = Math.round(skuCodes.length * options.storeShare)
      const carried = new Uint8Array(skuCodes.length)
      const picked: Array<number> = []
      for (let attempts = 0; picked.length < wanted && attempts < wanted * 50; attempts++) {
        const i = Math.floor(skuCodes.length * draw() ** 2)
        if (carried[i] === 1) continue
        carried[i] = 1
        picked.push(i)
      }
      picked.sort((a, b) => a - b)
      for (const i of picked) yield { node: node.code, sku: skuCodes[i] ?? "", units: 1 + Math.floor(draw() * 30) }
    }
  }

  return {
    options,
    network,
    stockRows,
    skuCodes,
    shape: {
      nodes: network.nodes.length,
      cds: network.nodes.filter((node) => node.type === "CD").length,
      hubs: network.nodes.filter((node) => node.type === "HUB").length,
      stores: network.nodes.filter((node) => node.type === "TD").length,
      suppliersAndSellers: network.nodes.filter((node) => node.type === "PRV" || node.type === "SELLER").length,
      routes: network.routes.length,
      zones: network.zones.length,
      ubigeos: network.zones.reduce((sum, zone) => sum + zone.ubigeos.length, 0),
      skus: options.skus
    }
  }
}

/** The network document with its stock embedded (today's `PUT /v1/network` format). */
export const withStock = (network: NetworkDocumentInput, rows: Iterable<StockRow>): NetworkDocumentInput => ({
  ...network,
  stock: Array.from(rows)
})
