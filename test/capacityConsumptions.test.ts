import { describe, expect, layer } from "@effect/vitest"
import { CheckoutTraffic } from "@retail/service-capacity"
import { Effect, Layer } from "effect"
import {
  ADAPTER_LAYER_OPTIONS,
  ADAPTERS,
  adapterServer,
  JSON_TYPE,
  message,
  offeredPickup,
  pacedAs,
  postAs,
  runMonday,
  type Seen,
  shownPaced
} from "./support/BothAdapters.ts"
import type { Pace } from "./support/PacedUpload.ts"

// Issue 22: POST /v1/delivery/capacity/consumptions has a node:http fast lane (OrdersLane) beside
// its HttpApi route. The lane takes the requests whose headers the Effect stack would pass and
// answers them with answerOrder over takeOrder, the function the HttpApi handler runs; the others
// it leaves to the stack. Every case runs against both, through real HTTP, and must get the same
// status, Content-Type, Retry-After and body (order ids aside, which differ by server).

const run = crypto.randomUUID().slice(0, 8)
const ADMIN_KEY = `orders-admin-${run}`
/** One API key per case: each has its own rate bucket of BURST requests. */
const keyOf = (name: string) => `orders-${run}-${name}`
const BURST = 10
// Above the demo network's ~3,800 values and 37 KB, which each server is given first.
const MAX_VALUES = 10_000
const MAX_BYTES = 262_144
const IDLE_MS = 1000

const CASES = ["quote", "200", "409", "400", "413", "401", "415", "429", "408"] as const
type CaseName = typeof CASES[number]

const SETTINGS = {
  CAPACITY_API_KEYS: [ADMIN_KEY, ...CASES.map(keyOf)].join(","),
  REQUEST_MAX_VALUES: String(MAX_VALUES),
  REQUEST_MAX_BYTES: String(MAX_BYTES),
  // 0.01 a second: a bucket refills one request in 100 s, so Retry-After is 100.
  API_KEY_RATE_LIMIT_PER_SECOND: "0.01",
  API_KEY_RATE_LIMIT_BURST: String(BURST),
  UPLOAD_IDLE_TIMEOUT_MS: String(IDLE_MS),
  UPLOAD_MIN_BYTES_PER_SECOND: "1024"
}

// A real database keeps rows of earlier runs: this run takes capacity on a Monday of its own.
const monday = runMonday()
const STORE = "TD-SURCO"
const PATH = "/v1/delivery/capacity/consumptions"

const post = (name: CaseName, body: string, headers: Record<string, string> = {}) => postAs(keyOf(name), PATH, body, headers)

/** The order a client places on the answer for a pickup at the store (one shared picking pool of 120 a day). */
const offeredOrder = offeredPickup(keyOf("quote"), monday)

const paced = (body: string, pace: Pace) => pacedAs(keyOf("408"), PATH, body, pace)

/** Every answer each adapter gave, by case, order ids replaced by the adapter's tag (of one length: the 413 names a byte offset): compared at the end. */
const answers = new Map<string, Map<string, unknown>>()
const keep = (adapter: string, name: string, answer: unknown) => {
  const byCase = answers.get(adapter) ?? new Map<string, unknown>()
  answers.set(adapter, byCase)
  byCase.set(name, JSON.parse(JSON.stringify(answer).replaceAll(`${run}-${adapter}`, "RUN")))
  return answer
}

describe.each(ADAPTERS)("POST /v1/delivery/capacity/consumptions through $adapter", ({ tag: adapter, fastLane }) => {
  const orderId = (name: string) => `${run}-${adapter}-${name}`
  layer(adapterServer(ADMIN_KEY, SETTINGS, fastLane), ADAPTER_LAYER_OPTIONS)((it) => {
    it.effect("200 APPLIED, then ALREADY_APPLIED for the same content; 409 OrderConflict for other content, CapacityConflict past the capacity; each counted as checkout served", () =>
      Effect.gen(function*() {
        const order = yield* offeredOrder
        const body = (id: string, units: number) => JSON.stringify({ orderId: orderId(id), ...order, units })
        const served = CheckoutTraffic.count()
        const applied = keep(adapter, "applied", yield* post("200", body("a", 1)))
        expect(applied).toEqual({ status: 200, contentType: JSON_TYPE, retryAfter: null, body: JSON.stringify({ orderId: orderId("a"), status: "APPLIED" }) })
        expect(keep(adapter, "again", yield* post("200", body("a", 1))))
          .toEqual({ status: 200, contentType: JSON_TYPE, retryAfter: null, body: JSON.stringify({ orderId: orderId("a"), status: "ALREADY_APPLIED" }) })
        const conflict = keep(adapter, "conflict", yield* post("409", body("a", 2))) as Seen
        expect({ ...conflict, body: JSON.parse(conflict.body) }).toEqual({
          status: 409,
          contentType: JSON_TYPE,
          retryAfter: null,
          body: {
            message: `order ${orderId("a")} was already applied with other content (units: 1 applied, 2 sent); ` +
              "the applied order stands and nothing was taken: release it first, or use another orderId",
            orderId: orderId("a"),
            fields: ["units"]
          }
        })
        expect(keep(adapter, "capacity", yield* post("409", body("b", 121))))
          .toEqual(message(409, `capacity ran out: PICKING ${STORE} ALL on ${order.pickingDate} cannot take 121 more (total 120); nothing was taken`))
        // Four orders taken, refusals included: what the batch workers' thread reads to tell checkout traffic (LoopPacing.ts).
        expect(CheckoutTraffic.count() - served).toBe(4)
      }))

    it.effect("400: an order the network does not match, a body that is not an order, a body that is not JSON", () =>
      Effect.gen(function*() {
        const order = yield* offeredOrder
        const unknownRoute = keep(adapter, "route", yield* post("400", JSON.stringify({ orderId: orderId("c"), ...order, route: "R-NOPE", units: 1 }))) as Seen
        expect(unknownRoute).toMatchObject({ status: 400, contentType: JSON_TYPE, body: expect.stringContaining("route") })
        const missing = keep(adapter, "missing", yield* post("400", JSON.stringify({ orderId: orderId("d") }))) as Seen
        expect(missing.status).toBe(400)
        expect((JSON.parse(missing.body) as { message: string }).message).toMatch(/^Invalid request: body field dispatchCode: is missing/)
        expect(keep(adapter, "units", yield* post("400", JSON.stringify({ orderId: orderId("e"), ...order, units: 0 }))))
          .toMatchObject({ status: 400, body: expect.stringContaining("units") })
        expect(keep(adapter, "not JSON", yield* post("400", "{\"orderId\":"))).toEqual(message(400, "Invalid request: the body is not valid JSON"))
      }))

    it.effect("413: more JSON values than REQUEST_MAX_VALUES, or a body over REQUEST_MAX_BYTES", () =>
      Effect.gen(function*() {
        const values = keep(adapter, "values", yield* post("413", JSON.stringify({ orderId: orderId("f"), padding: Array.from({ length: MAX_VALUES }, (_, i) => i % 10) }))) as Seen
        expect(values).toMatchObject({ status: 413, contentType: JSON_TYPE, body: expect.stringContaining(`more than ${MAX_VALUES} JSON values (REQUEST_MAX_VALUES)`) })
        expect(keep(adapter, "bytes", yield* post("413", JSON.stringify({ orderId: orderId("g"), padding: "x".repeat(MAX_BYTES) }))))
          .toEqual(message(413, `The request body is larger than the limit of ${MAX_BYTES} bytes (REQUEST_MAX_BYTES)`))
      }))

    it.effect("401 without a known key, 415 for another media type, 429 past the key's rate", () =>
      Effect.gen(function*() {
        const body = JSON.stringify({ orderId: orderId("h") })
        expect(keep(adapter, "401", yield* post("401", body, { authorization: "Bearer not-a-key" }))).toMatchObject({ status: 401 })
        expect(keep(adapter, "415", yield* post("415", body, { "content-type": "text/plain" })))
          .toEqual(message(415, "Content-Type must be application/json (got text/plain)"))
        for (let i = 0; i < BURST; i++) expect((yield* post("429", "{")).status).toBe(400)
        expect(keep(adapter, "429", yield* post("429", body))).toEqual(message(429, "Too many requests for this API key; retry after 100 s", "100"))
      }))

    it.effect("408: a body that stops arriving, or trickles under UPLOAD_MIN_BYTES_PER_SECOND", () =>
      Effect.gen(function*() {
        const padding = "x".repeat(8000)
        const [stalled, trickled] = yield* Effect.all([
          paced(JSON.stringify({ orderId: orderId("i"), padding }), { chunkBytes: 2048, everyMs: 20, stallAfterBytes: 4096 }),
          // 400 bytes/s: never idle, under the 1024 bytes/s minimum.
          paced(JSON.stringify({ orderId: orderId("j"), padding }), { chunkBytes: 40, everyMs: 100 })
        ], { concurrency: "unbounded" })
        expect(keep(adapter, "stalled", shownPaced(stalled))).toEqual({
          status: 408,
          contentType: JSON_TYPE,
          body: JSON.stringify({ message: `The request body stopped arriving: nothing for ${IDLE_MS} ms (UPLOAD_IDLE_TIMEOUT_MS). Nothing was published.` })
        })
        expect(keep(adapter, "trickled", shownPaced(trickled))).toEqual({
          status: 408,
          contentType: JSON_TYPE,
          body: JSON.stringify({ message: `The request body arrived slower than 1024 bytes/s over ${IDLE_MS} ms (UPLOAD_MIN_BYTES_PER_SECOND). Nothing was published.` })
        })
      }))
  })
})

describe("both adapters of the consumptions", () => {
  layer(Layer.empty)((it) => {
    it("gave the same answer to every case", () => {
      const lane = answers.get("fast")
      const httpApi = answers.get("http")
      expect(lane?.size).toBe(15)
      expect(httpApi).toEqual(lane)
    })
  })
})
