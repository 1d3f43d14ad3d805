import { demoNetwork } from "@retail/capacity"
import { rng } from "../../parsers/generate.ts"

/**
 * Carts as checkout asks about them on the demo network: a customer's district (Zipf over every
 * district the zones cover: a few districts order most), a dispatch type (NORMAL mostly), and lines
 * whose SKUs follow a Zipf law over the catalogue (a few best sellers, a long tail), each from a
 * node that holds it, in quantities of 1 (mostly) to 3.
 */
export interface Cart {
  readonly destination: Destination
  readonly dispatchType: "NORMAL" | "EXPRESS"
  readonly lines: ReadonlyArray<CartLine>
}

export interface Destination {
  readonly ubigeo: string
  readonly latitude: number
  readonly longitude: number
}

export interface CartLine {
  readonly sku: string
  /** Nodes holding the SKU (the caller picks one that reaches the destination). */
  readonly holders: ReadonlyArray<Holder>
  readonly quantity: number
  /** kg per unit: fixed per SKU. */
  readonly weight: number
}

export interface Holder {
  readonly code: string
  readonly type: string
}

/** P(rank k) proportional to 1 / k^s: a sampler of ranks 0..n-1. */
export const zipf = (random: () => number, n: number, s = 1): (() => number) => {
  const cumulative: Array<number> = []
  let total = 0
  for (let k = 1; k <= n; k++) cumulative.push(total += 1 / k ** s)
  return () => {
    const target = random() * total
    let low = 0
    let high = n - 1
    while (low < high) {
      const middle = (low + high) >> 1
      if ((cumulative[middle] ?? total) < target) low = middle + 1
      else high = middle
    }
    return low
  }
}

const shuffled = <A>(random: () => number, items: ReadonlyArray<A>): Array<A> => {
  const copy = [...items]
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    const a = copy[i]
    const b = copy[j]
    if (a !== undefined && b !== undefined) [copy[i], copy[j]] = [b, a]
  }
  return copy
}

/** Lima's centre: districts without a node of the demo network get coordinates around it. */
const LIMA = { latitude: -12.0464, longitude: -77.0428 }

const destinations = (random: () => number): Array<Destination> => {
  const located = new Map(demoNetwork.nodes.map((node) => [node.address.ubigeoCode, node.address] as const))
  return demoNetwork.zones.flatMap((zone) => zone.ubigeos).map((ubigeo) => {
    const at = located.get(ubigeo)
    return at === undefined || at.latitude === undefined || at.longitude === undefined
      ? { ubigeo, latitude: LIMA.latitude + (random() - 0.5) / 10, longitude: LIMA.longitude + (random() - 0.5) / 10 }
      : { ubigeo, latitude: at.latitude, longitude: at.longitude }
  })
}

/** Every SKU of the demo network's stock with the nodes of the given types that hold it. */
const catalogue = (types: ReadonlySet<string>): Array<{ readonly sku: string; readonly holders: Array<Holder> }> => {
  const typeOf = new Map(demoNetwork.nodes.map((node) => [node.code, node.type] as const))
  const bySku = new Map<string, Array<Holder>>()
  for (const { node, sku } of demoNetwork.stock ?? []) {
    const type = typeOf.get(node)
    if (type === undefined || !types.has(type)) continue
    const holders = bySku.get(sku) ?? []
    holders.push({ code: node, type })
    bySku.set(sku, holders)
  }
  return [...bySku.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([sku, holders]) => ({ sku, holders }))
}

export interface CartOptions {
  readonly seed: number
  readonly lines: number
  /** Node types a line may ship from: CD, PRV, SELLER for home delivery; TD too when stores may be searched. */
  readonly holderTypes: ReadonlyArray<string>
  /** Share of carts asked as EXPRESS (the rest NORMAL). */
  readonly expressShare: number
}

/** An endless, seeded stream of carts. */
export const cartStream = (options: CartOptions): (() => Cart) => {
  const random = rng(options.seed)
  const places = shuffled(random, destinations(random))
  const products = shuffled(random, catalogue(new Set(options.holderTypes))).map((product) => ({ ...product, weight: Math.round((0.2 + random() * 12) * 10) / 10 }))
  const place = zipf(random, places.length)
  const product = zipf(random, products.length)
  const quantity = () => {
    const draw = random()
    return draw < 0.7 ? 1 : draw < 0.9 ? 2 : 3
  }
  return () => ({
    destination: places[place()] ?? places[0] ?? { ubigeo: "150122", ...LIMA },
    dispatchType: random() < options.expressShare ? "EXPRESS" : "NORMAL",
    lines: Array.from({ length: options.lines }, () => {
      const chosen = products[product()] ?? products[0]
      if (chosen === undefined) throw new Error("the demo network stocks no SKU at the nodes asked for")
      return { sku: chosen.sku, holders: chosen.holders, quantity: quantity(), weight: chosen.weight }
    })
  })
}
