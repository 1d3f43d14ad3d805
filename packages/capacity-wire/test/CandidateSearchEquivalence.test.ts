import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import fc from "fast-check"
import {
  buildSnapshot,
  fullScanCandidateSearch,
  HOLDERS_LISTED_UP_TO,
  indexedCandidateSearch,
  ledgerFromUses,
  type NetworkDocumentInput,
  type Snapshot
} from "@retail/capacity"
import { decodeDeliveryRequestB, encodeDeliveryResponseB, evaluateVariantB } from "../src/index.ts"
import { decoded, limaTime } from "../../capacity/test/fixtures.ts"

/**
 * Variant B's origin search and pickup-store choice read candidates through an index (by latitude,
 * by SKU: CandidateSearch.ts). On random networks (nodes bunched, some on one spot; routes, stock and
 * requests drawn at random; a SKU held by more nodes than the holder lists cover, so both ways of
 * the index run) every answer must be, as text, the answer of the full scan of every candidate.
 */

type NodeInput = NetworkDocumentInput["nodes"][number]
type RouteInput = NetworkDocumentInput["routes"][number]

const EVERY_DAY = ["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"] as const
const SKUS = ["POP", "MID", "RARE", "NONE"] as const

const spot = fc.oneof(
  fc.constantFrom([-12.12, -77.03], [-12.1, -77.0], [-12.2, -76.9], [-11.99, -77.06], [-16.4, -71.5]),
  fc.tuple(fc.double({ min: -12.4, max: -11.8, noNaN: true }), fc.double({ min: -77.3, max: -76.7, noNaN: true })),
  fc.tuple(fc.double({ min: -18, max: -3, noNaN: true }), fc.double({ min: -81, max: -69, noNaN: true }))
)

interface DrawnNode {
  readonly type: "CD" | "TD" | "HUB" | "PRV"
  readonly at: readonly [number, number]
  readonly stock: Readonly<Partial<Record<(typeof SKUS)[number], number | undefined>>>
}

const drawnNode: fc.Arbitrary<DrawnNode> = fc.record({
  type: fc.constantFrom("CD", "TD", "TD", "TD", "HUB", "PRV"),
  at: spot,
  stock: fc.record({
    POP: fc.option(fc.nat(9), { freq: 10, nil: undefined }),
    MID: fc.option(fc.nat(9), { freq: 2, nil: undefined }),
    RARE: fc.option(fc.nat(9), { freq: 1, nil: undefined })
  }, { requiredKeys: [] })
})

const nodeInput = (code: string, drawn: DrawnNode): NodeInput => ({
  code,
  type: drawn.type,
  name: code,
  shortName: code,
  address: { address: code, district: "d", province: "p", ubigeoCode: "150122", country: "PE", latitude: drawn.at[0], longitude: drawn.at[1] },
  contact: { phone: "1" },
  pickingDays: EVERY_DAY,
  pickingCutoff: "14:00",
  processingDays: 0,
  pickingCapacity: 50,
  dispatchCapacity: 50
})

interface DrawnRoute {
  readonly from: number
  readonly to: number | "Z1" | "Z2"
  readonly express: boolean
  readonly normal: boolean
  readonly mode: "HOME_DELIVERY" | "STORE_WITHDRAWAL" | "BOTH"
}

const drawnRoute: fc.Arbitrary<DrawnRoute> = fc.record({
  from: fc.nat(200),
  to: fc.oneof(fc.nat(200), fc.constantFrom("Z1" as const, "Z2" as const)),
  express: fc.boolean(),
  normal: fc.boolean(),
  mode: fc.constantFrom("HOME_DELIVERY" as const, "STORE_WITHDRAWAL" as const, "BOTH" as const)
})

// Small networks, and networks with more nodes than a holder list covers (a SKU most of them hold).
const network = fc.oneof(
  fc.array(drawnNode, { minLength: 1, maxLength: 12 }),
  fc.array(drawnNode, { minLength: HOLDERS_LISTED_UP_TO + 10, maxLength: HOLDERS_LISTED_UP_TO + 30 })
).chain((nodes) => fc.record({ nodes: fc.constant(nodes), routes: fc.array(drawnRoute, { minLength: nodes.length, maxLength: 3 * nodes.length }) }))
  .map(({ nodes, routes }): NetworkDocumentInput => {
  const codes = nodes.map((drawn, i) => `${drawn.type}-${i}`)
  const routeInputs: Array<RouteInput> = []
  routes.forEach((drawn, i) => {
    const source = codes[drawn.from % codes.length] ?? ""
    const target: RouteInput["target"] = typeof drawn.to === "number"
      ? { kind: "NODE", node: codes[drawn.to % codes.length] ?? "" }
      : { kind: "ZONES", zones: [drawn.to] }
    if (target.kind === "NODE" && target.node === source) return
    routeInputs.push({
      id: `R${i}`,
      source,
      target,
      dispatchTypes: drawn.express && drawn.normal ? ["NORMAL", "EXPRESS"] : drawn.express ? ["EXPRESS"] : ["NORMAL"],
      deliveryModes: drawn.mode === "BOTH" ? ["HOME_DELIVERY", "STORE_WITHDRAWAL"] : [drawn.mode],
      departureDays: EVERY_DAY,
      departureCutoff: "18:00",
      leadTime: { days: 1, unit: "CALENDAR_DAYS" },
      capacityPerDeparture: 100,
      cost: { base: 1, perKg: 0.1 }
    })
  })
  return {
    nodes: nodes.map((drawn, i) => nodeInput(codes[i] ?? "", drawn)),
    routes: routeInputs,
    zones: [
      { code: "Z1", name: "Z1", ubigeos: ["150122"], windows: [{ code: "AM", start: "09:00", end: "13:00", capacity: 20 }] },
      { code: "Z2", name: "Z2", ubigeos: ["150103"], windows: [{ code: "AM", start: "09:00", end: "13:00", capacity: 20 }] }
    ],
    stock: nodes.flatMap((drawn, i) =>
      Object.entries(drawn.stock).flatMap(([sku, units]) => (units === undefined ? [] : [{ node: codes[i] ?? "", sku, units }])))
  }
})

const request = (nodeCount: number) =>
  fc.record({
    purchaseDate: fc.constant("2027-03-01"),
    saleChannel: fc.constant("WEB"),
    dispatchType: fc.constantFrom("NORMAL", "EXPRESS"),
    dispatchMode: fc.constantFrom("HOME_DELIVERY", "STORE_WITHDRAWAL", "ALL_DISPATCH_MODES"),
    calculationOptions: fc.record({
      calculate: fc.constant("SEARCH_ORIGINS_BY_COORDINATES"),
      maxDistancePickingStore: fc.oneof(fc.constant(5), fc.constant(30), fc.constant(3000), fc.double({ min: 0, max: 100, noNaN: true })),
      maxPickupPoint: fc.integer({ min: 1, max: 4 }),
      maxOrigins: fc.integer({ min: 1, max: 4 }),
      maxItemsPerOrigin: fc.integer({ min: 1, max: 4 }),
      validateStock: fc.boolean()
    }, { requiredKeys: ["calculate"] }),
    deliveryData: fc.tuple(spot, fc.constantFrom("150122", "150103", "999999")).map(([[latitude, longitude], ubigeoCode]) => ({
      latitude,
      longitude,
      ubigeoCode
    })),
    items: fc.array(
      fc.record({
        skuCode: fc.constantFrom(...SKUS),
        quantity: fc.integer({ min: 1, max: 6 }),
        origin: fc.option(fc.nat(nodeCount - 1), { freq: 4, nil: undefined })
      }),
      { minLength: 1, maxLength: 5 }
    )
  })

const answer = (snapshot: Snapshot, body: unknown, search: typeof indexedCandidateSearch) =>
  Result.match(decodeDeliveryRequestB(body), {
    onFailure: (error) => `400 ${error.message}`,
    onSuccess: (decodedRequest) =>
      Result.match(evaluateVariantB(snapshot, decodedRequest, limaTime("2027-03-01", "09:00"), undefined, search), {
        onFailure: (error) => `404 ${error.message}`,
        onSuccess: (response) => encodeDeliveryResponseB(response).toString("utf8")
      })
  })

describe("variant B's indexed candidate search", () => {
  it("answers every request on random networks as the full scan of every candidate does", () => {
    let routed = 0
    let wide = 0
    fc.assert(
      fc.property(
        network.chain((doc) => fc.tuple(fc.constant(doc), fc.array(request(doc.nodes.length), { minLength: 1, maxLength: 4 }))),
        ([doc, requests]) => {
          const snapshot = buildSnapshot(decoded(doc), ledgerFromUses([]))
          const codes = doc.nodes.map((node) => node.code)
          if ((doc.stock ?? []).filter((row) => row.sku === "POP").length > HOLDERS_LISTED_UP_TO) wide++
          for (const body of requests) {
            const withCodes = {
              ...body,
              items: body.items.map(({ origin, ...item }) => (origin === undefined ? item : { ...item, origin: codes[origin] }))
            }
            const indexed = answer(snapshot, withCodes, indexedCandidateSearch)
            expect(indexed).toEqual(answer(snapshot, withCodes, fullScanCandidateSearch))
            if (indexed.startsWith("{")) routed++
          }
        }
      ),
      { numRuns: 120 }
    )
    // The comparison covered answers with entries, and networks where a SKU has too many holders to list.
    expect(routed).toBeGreaterThan(20)
    expect(wide).toBeGreaterThan(0)
  })
})
