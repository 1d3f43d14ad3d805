import { describe, expect, layer } from "@effect/vitest"
import { buildSnapshot, decodeNetwork, defaultEngineOptions, demoNetwork, emptyLedger } from "@retail/capacity"
import { answerText, answerVariantA, answerVariantB } from "@retail/capacity-wire"
import { CheckoutTraffic } from "@retail/service-capacity"
import { Effect, Result } from "effect"
import { ADAPTER_LAYER_OPTIONS, ADAPTERS, adapterServer, JSON_TYPE, pacedAs, postAs, type Seen, shownPaced } from "./support/BothAdapters.ts"
import { variantAItem } from "./support/CapacityBodies.ts"
import type { Pace } from "./support/PacedUpload.ts"

// Issue 22: POST /v1/delivery/capacity has one answer function and two adapters over it, the
// node:http fast lane and the HttpApi route (which serves it on an HttpServer other than node:http).
// Every case here runs against both, through real HTTP, and must get the same bytes: status,
// Content-Type, Retry-After and body.

const run = crypto.randomUUID().slice(0, 8)
const ADMIN_KEY = `answers-admin-${run}`
/** One API key per case: each has its own rate bucket of BURST requests. */
const keyOf = (name: string) => `answers-${run}-${name}`
const BURST = 3
const MAX_BODY_BYTES = 16_384
const IDLE_MS = 1000

const CASES = [
  "200 A", "200 B", "200 B origins sent", "+json", "400 A", "400 B", "400 B rule", "400 neither", "400 not JSON A", "400 not JSON B",
  "404 A", "404 B", "401", "415", "413", "429", "408"
] as const
type CaseName = typeof CASES[number]

const SETTINGS = {
  CAPACITY_API_KEYS: [ADMIN_KEY, ...CASES.map(keyOf)].join(","),
  CAPACITY_MAX_BODY_BYTES: String(MAX_BODY_BYTES),
  // 0.01 a second: a bucket refills one request in 100 s, so Retry-After is 100.
  API_KEY_RATE_LIMIT_PER_SECOND: "0.01",
  API_KEY_RATE_LIMIT_BURST: String(BURST),
  UPLOAD_IDLE_TIMEOUT_MS: String(IDLE_MS),
  UPLOAD_MIN_BYTES_PER_SECOND: "1024",
  // The answers are compared with the demo network's on an empty ledger: nothing re-read from a shared database.
  CAPACITY_RECONCILE_INTERVAL_MS: "0"
}

/** A date no other suite takes capacity on (they take random Mondays of 2028 to 2066): the server's answer is the empty ledger's. */
const PURCHASE_DATE = "2071-03-02"
const demo = buildSnapshot(Result.getOrThrow(decodeNetwork(demoNetwork)), emptyLedger)

const itemA = variantAItem
const bodyA = {
  purchaseDate: PURCHASE_DATE,
  items: [itemA({ weight: 2 }), itemA({ skuCode: "SKU-LAPTOP-14", destination: "150131", quantity: 2 }), itemA({ origin: "CD-CALLAO", deliveryMode: "STORE_WITHDRAWAL", destination: "TD-SURCO" })]
}
const MIRAFLORES = { latitude: -12.1219, longitude: -77.0297, ubigeoCode: "150122", destination: "Av. Larco 345" }
const bodyB = {
  purchaseDate: PURCHASE_DATE,
  saleChannel: "WEB",
  dispatchMode: "ALL_DISPATCH_MODES",
  calculationOptions: { calculate: "SEARCH_ORIGINS_BY_COORDINATES", optimization: "PROXIMITY_STORE", maxDistancePickingStore: 30, maxPickupPoint: 2 },
  deliveryData: MIRAFLORES,
  items: [{ skuCode: "SKU-SMARTWATCH-GT", quantity: 2, weight: 0.2 }, { skuCode: "SKU-CELULAR-A54", quantity: 1 }]
}
const bodyBFixed = {
  purchaseDate: PURCHASE_DATE,
  saleChannel: "WEB",
  deliveryData: MIRAFLORES,
  items: [{ skuCode: "SKU-TV-55-4K", origin: "CD-LURIN", quantity: 1, weight: 20 }, { skuCode: "SKU-LAPTOP-14", origin: "CD-CALLAO", quantity: 3 }]
}

const TEXT_TYPE = "text/plain; charset=utf-8"
const text = (status: number, body: string, retryAfter: string | null = null): Seen => ({ status, contentType: TEXT_TYPE, retryAfter, body })
const errorB = (status: number, code: string, message: string, details: unknown = {}, retryAfter: string | null = null): Seen => ({
  status,
  contentType: JSON_TYPE,
  retryAfter,
  body: JSON.stringify({ code, message, details })
})
/** The answer the engine gives in this process on the demo network with no usage (the server's is that one). */
const engineAnswer = (variant: "A" | "B", body: unknown): Seen => {
  const answer = (variant === "A" ? answerVariantA : answerVariantB)(defaultEngineOptions, demo, body, Date.now())
  return { status: answer.status, contentType: answer.contentType, retryAfter: null, body: answerText(answer) }
}
/** JSON.parse's own words for a body that is not JSON (the server runs on this node). */
const parseError = (body: string): string => {
  try {
    JSON.parse(body)
    return "parsed"
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}

const post = (name: CaseName, body: string, headers: Record<string, string> = {}, path = "/v1/delivery/capacity") =>
  postAs(keyOf(name), path, body, headers)

const timeoutMessage = `the body arrived slower than 1024 bytes/s or not at all over ${IDLE_MS} ms (UPLOAD_IDLE_TIMEOUT_MS, UPLOAD_MIN_BYTES_PER_SECOND)`
const paced = (body: string, pace: Pace) => pacedAs(keyOf("408"), "/v1/delivery/capacity", body, pace)

describe.each(ADAPTERS)("POST /v1/delivery/capacity through $adapter", ({ fastLane }) => {
  layer(adapterServer(ADMIN_KEY, SETTINGS, fastLane), ADAPTER_LAYER_OPTIONS)((it) => {
    it.effect("200: variant A's results and variant B's response, as the engine gives them; each counted as checkout served", () =>
      Effect.gen(function*() {
        const served = CheckoutTraffic.count()
        const a = yield* post("200 A", JSON.stringify(bodyA))
        expect(a.status, a.body).toBe(200)
        expect(a).toEqual(engineAnswer("A", bodyA))
        const b = yield* post("200 B", JSON.stringify(bodyB))
        expect(b.status, b.body).toBe(200)
        expect(b).toEqual(engineAnswer("B", bodyB))
        expect(yield* post("200 B origins sent", JSON.stringify(bodyBFixed))).toEqual(engineAnswer("B", bodyBFixed))
        // What the batch workers' thread reads to tell checkout traffic (LoopPacing.ts).
        expect(CheckoutTraffic.count() - served).toBe(3)
      }))

    it.effect("a JSON media type with a charset, or of the +json kind, and a trailing slash on the path, are the same request", () =>
      Effect.gen(function*() {
        const expected = engineAnswer("A", bodyA)
        expect(yield* post("+json", JSON.stringify(bodyA), { "content-type": "application/json; charset=utf-8" })).toEqual(expected)
        expect(yield* post("+json", JSON.stringify(bodyA), { "content-type": "application/vnd.checkout+json" })).toEqual(expected)
        expect(yield* post("+json", JSON.stringify(bodyA), {}, "/v1/delivery/capacity/")).toEqual(expected)
      }))

    it.effect("400: a field variant A or B rejects, a rule across fields, a body of neither variant", () =>
      Effect.gen(function*() {
        const badA = { ...bodyA, purchaseDate: "2071-02-30", items: [itemA({ quantity: 0 })] }
        expect(yield* post("400 A", JSON.stringify(badA)))
          .toEqual(text(400, "Bad request: purchaseDate: expected a real date YYYY-MM-DD; items[0].quantity: must be greater than 0"))
        expect(yield* post("400 A", JSON.stringify({ purchaseDate: PURCHASE_DATE, items: [] }))).toEqual(text(400, "Bad request: items: must not be empty"))
        const badB = { ...bodyB, saleChannel: "", items: [{ skuCode: "SKU-TV-55-4K", quantity: -1 }] }
        expect(yield* post("400 B", JSON.stringify(badB))).toEqual(errorB(400, "INVALID_REQUEST", "saleChannel: must not be empty; items[0].quantity: must be greater than 0", {
          fields: [{ field: "saleChannel", message: "must not be empty" }, { field: "items[0].quantity", message: "must be greater than 0" }]
        }))
        const ruleB = { ...bodyB, calculationOptions: { rangeStart: "2071-03-10", rangeEnd: "2071-03-05" } }
        expect(yield* post("400 B rule", JSON.stringify(ruleB))).toEqual(errorB(400, "BUSINESS_RULE_VIOLATION", "calculationOptions.rangeEnd: must not be before rangeStart (2071-03-10)", {
          fields: [{ field: "calculationOptions.rangeEnd", message: "must not be before rangeStart (2071-03-10)" }]
        }))
        expect(yield* post("400 neither", JSON.stringify({ purchaseDate: PURCHASE_DATE, items: [{ skuCode: "SKU-TV-55-4K" }] }))).toEqual(text(
          400,
          "Bad request: the body matches neither variant: variant A has items with origin and deliveryMode; variant B has saleChannel and deliveryData"
        ))
      }))

    it.effect("400: a body that is not JSON, in the format of the variant it reads as as far as it goes", () =>
      Effect.gen(function*() {
        const cutA = JSON.stringify(bodyA).slice(0, 60)
        expect(yield* post("400 not JSON A", cutA)).toEqual(text(400, `Bad request: the body is not valid JSON (${parseError(cutA)})`))
        const cutB = JSON.stringify(bodyB).slice(0, 60)
        expect(yield* post("400 not JSON B", cutB)).toEqual(errorB(400, "INVALID_REQUEST", `the body is not valid JSON (${parseError(cutB)})`))
      }))

    it.effect("404: no dispatch has a route", () =>
      Effect.gen(function*() {
        const nowhereA = { purchaseDate: PURCHASE_DATE, items: [itemA({ zone: "NOWHERE", destination: "150999" })] }
        expect(yield* post("404 A", JSON.stringify(nowhereA)))
          .toEqual(text(404, "Not found: no route found for any dispatch: no zone serves zone \"NOWHERE\" / ubigeo \"150999\""))
        const nowhereB = { ...bodyBFixed, deliveryData: { latitude: 0, longitude: 0, ubigeoCode: "999999" } }
        const b = yield* post("404 B", JSON.stringify(nowhereB))
        expect(b).toEqual(engineAnswer("B", nowhereB))
        expect(b).toMatchObject({ status: 404, contentType: JSON_TYPE, body: expect.stringContaining("\"code\":\"NO_ROUTE_FOUND\"") })
      }))

    it.effect("401: no key, a key of another scheme or an unknown one; in the body's format, whatever its media type or size", () =>
      Effect.gen(function*() {
        const a = text(401, "Unauthorized: send Authorization: Bearer <api-key>")
        const b = errorB(401, "UNAUTHORIZED", "send Authorization: Bearer <api-key>")
        expect(yield* post("401", JSON.stringify(bodyA), { authorization: "" })).toEqual(a)
        expect(yield* post("401", JSON.stringify(bodyA), { authorization: keyOf("401") })).toEqual(a)
        expect(yield* post("401", JSON.stringify(bodyB), { authorization: "Bearer not-a-key" })).toEqual(b)
        expect(yield* post("401", JSON.stringify(bodyB), { authorization: "Bearer not-a-key", "content-type": "text/plain" })).toEqual(b)
        const large = JSON.stringify({ ...bodyB, padding: "x".repeat(MAX_BODY_BYTES) })
        expect(yield* post("401", large, { authorization: "Basic eDp5" })).toEqual(b)
      }))

    it.effect("415: a body not sent as JSON, in its format, before its size", () =>
      Effect.gen(function*() {
        expect(yield* post("415", JSON.stringify(bodyA), { "content-type": "text/plain" }))
          .toEqual(text(415, "Unsupported media type: send Content-Type: application/json"))
        const large = JSON.stringify({ ...bodyB, padding: "x".repeat(MAX_BODY_BYTES) })
        expect(yield* post("415", large, { "content-type": "application/json; charset=latin1" }))
          .toEqual(errorB(415, "UNSUPPORTED_MEDIA_TYPE", "send Content-Type: application/json"))
      }))

    it.effect("413: a body over CAPACITY_MAX_BODY_BYTES, in the format its first bytes read as", () =>
      Effect.gen(function*() {
        const padding = "x".repeat(MAX_BODY_BYTES)
        expect(yield* post("413", JSON.stringify({ ...bodyA, padding }))).toEqual(text(413, `Payload too large: at most ${MAX_BODY_BYTES} bytes`))
        expect(yield* post("413", JSON.stringify({ ...bodyB, padding })))
          .toEqual(errorB(413, "PAYLOAD_TOO_LARGE", `the body is larger than ${MAX_BODY_BYTES} bytes (CAPACITY_MAX_BODY_BYTES)`))
      }))

    it.effect("429: a key past its rate, with Retry-After, in the body's format; refusals before the rate take none of it", () =>
      Effect.gen(function*() {
        // Neither an unknown key nor a body of another media type counts against the key.
        yield* post("429", "{}", { "content-type": "text/plain" })
        for (let i = 0; i < BURST; i++) expect((yield* post("429", "{}")).status).toBe(400)
        expect(yield* post("429", JSON.stringify(bodyA))).toEqual(text(429, "Too many requests for this API key; retry after 100 s", "100"))
        expect(yield* post("429", JSON.stringify({ ...bodyB, padding: "x".repeat(MAX_BODY_BYTES) })))
          .toEqual(errorB(429, "TOO_MANY_REQUESTS", "too many requests for this API key; retry after 100 s", {}, "100"))
        // Another key has its own bucket.
        expect((yield* post("200 A", "{}")).status).toBe(400)
      }))

    it.effect("408: a body that stalls or trickles, in the format of what arrived of it", () =>
      Effect.gen(function*() {
        const padding = "x".repeat(8000)
        const [stalledA, stalledB, trickledB] = yield* Effect.all([
          paced(JSON.stringify({ items: [], padding }), { chunkBytes: 2048, everyMs: 20, stallAfterBytes: 4096 }),
          paced(JSON.stringify({ saleChannel: "WEB", padding }), { chunkBytes: 2048, everyMs: 20, stallAfterBytes: 4096 }),
          // 400 bytes/s: never idle, under the 1024 bytes/s minimum.
          paced(JSON.stringify({ saleChannel: "WEB", padding }), { chunkBytes: 40, everyMs: 100 })
        ], { concurrency: "unbounded" })
        expect(shownPaced(stalledA)).toEqual({ status: 408, contentType: TEXT_TYPE, body: `Request timeout: ${timeoutMessage}` })
        const b = { status: 408, contentType: JSON_TYPE, body: JSON.stringify({ code: "REQUEST_TIMEOUT", message: timeoutMessage, details: {} }) }
        expect(shownPaced(stalledB)).toEqual(b)
        expect(shownPaced(trickledB)).toEqual(b)
      }))
  })
})
