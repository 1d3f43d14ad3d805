import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { baseUrl, TestServer } from "../support/TestServer.ts"

const KEY = "fuzz-capacity-key"

/** Real and unreal values of each field of a variant A item: the fuzzer mixes them. */
const itemFields = {
  origin: fc.constantFrom("CD-LURIN", "CD-UNKNOWN", "", "TD-AREQUIPA", "'; DROP TABLE nodes; --"),
  entityType: fc.constantFrom("CD", "TD", "PRV", "SELLER", "WAREHOUSE", ""),
  skuCode: fc.oneof(fc.constantFrom("SKU-TV-55-4K", ""), fc.string({ unit: "grapheme", maxLength: 40 })),
  zone: fc.constantFrom("", "LIMA-MODERNA", "ZONE-NOWHERE"),
  dispatchType: fc.constantFrom("NORMAL", "EXPRESS", "INTERNATIONAL", "TELEPORT"),
  quantity: fc.oneof(fc.integer({ min: -5, max: 50 }), fc.constantFrom(0, 0.5, 1e9, 1e308, -1e308)),
  destination: fc.constantFrom("150122", "", "999999"),
  latitude: fc.oneof(fc.double({ min: -90, max: 90, noNaN: true }), fc.constantFrom(-91, 1000)),
  longitude: fc.oneof(fc.double({ min: -180, max: 180, noNaN: true }), fc.constantFrom(181, -1e9)),
  deliveryMode: fc.constantFrom("HOME_DELIVERY", "PICKUP", "DRONE"),
  weight: fc.oneof(fc.double({ min: 0, max: 1e6, noNaN: true }), fc.constantFrom(-1, 1e308)),
  units: fc.integer({ min: -3, max: 1_000_000 })
}

/** A value of the wrong type for any field. */
const wrongType = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.string({ maxLength: 5 }), fc.constant([]), fc.constant({}))

const itemA = fc.record(itemFields, { requiredKeys: [] }).chain((item) =>
  fc.option(fc.tuple(fc.constantFrom(...Object.keys(itemFields)), wrongType), { freq: 4 }).map((swap) =>
    swap === null ? item : { ...item, [swap[0]]: swap[1] }
  )
)

const purchaseDate = fc.oneof(
  fc.constantFrom("2027-03-01", "2026-02-30", "2027-13-01", "2027-02-29", "0000-01-01", "9999-12-31", "", "tomorrow", "2027-3-1"),
  fc.date({ min: new Date("1970-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10))
)

/** Request generators by variant; variant B joins here when it is served. */
export const capacityRequests = {
  A: fc.record({
    purchaseDate,
    items: fc.array(itemA, { minLength: 0, maxLength: 20 }),
    isLastRoute: fc.boolean()
  }, { requiredKeys: ["items"] })
}

const item = {
  origin: "CD-LURIN", entityType: "CD", skuCode: "SKU-TV-55-4K", zone: "", dispatchType: "NORMAL", quantity: 1,
  destination: "150122", latitude: -12.12, longitude: -77.03, deliveryMode: "HOME_DELIVERY", weight: 2
}
const manyItems = JSON.stringify({ purchaseDate: "2027-03-01", items: Array.from({ length: 10_000 }, (_, i) => ({ ...item, skuCode: `SKU-${i}` })) })

const postTo = (base: string, body: string) =>
  fetch(`${base}/v1/delivery/capacity`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body,
    // Never a hang: every answer must come within this.
    signal: AbortSignal.timeout(30_000)
  }).then(async (response) => ({ status: response.status, text: await response.text() }))

describe("POST /v1/delivery/capacity under random requests", () => {
  layer(TestServer({ CAPACITY_API_KEYS: KEY }), { timeout: 120_000, excludeTestServices: true })((it) => {
    const post = postTo

    for (const [variant, requests] of Object.entries(capacityRequests)) {
      it.effect(`variant ${variant}: never a 5xx, always an answer; a 400 names what is wrong`, () =>
        Effect.gen(function*() {
          const base = yield* baseUrl
          yield* Effect.promise(() =>
            fc.assert(
              fc.asyncProperty(requests, async (request) => {
                const answer = await post(base, JSON.stringify(request))
                expect([200, 400, 404]).toContain(answer.status)
                if (answer.status === 400) expect(answer.text).toMatch(/^Bad request: .+/)
              }),
              { numRuns: 150, endOnFailure: true }
            )
          )
        }))
    }

    it.effect("a body of raw garbage is 400; 10,000 items are over the default 1 MiB body and 413", () =>
      Effect.gen(function*() {
        const base = yield* baseUrl
        expect((yield* Effect.promise(() => post(base, manyItems))).status).toBe(413)
        for (const garbage of ["", "null", "[]", "{", "\"x\"", "{\"items\":{}}", "\u0000\u0001"]) {
          const answer = yield* Effect.promise(() => post(base, garbage))
          expect({ garbage, status: answer.status }).toEqual({ garbage, status: 400 })
        }
      }))
  })
})

describe("POST /v1/delivery/capacity with 10,000 items under a raised body limit", () => {
  layer(TestServer({ CAPACITY_API_KEYS: KEY, CAPACITY_MAX_BODY_BYTES: String(8 * 1024 * 1024) }), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("the engine answers every one of the 10,000 items", () =>
      Effect.gen(function*() {
        const base = yield* baseUrl
        const answer = yield* Effect.promise(() => postTo(base, manyItems))
        expect(answer.status).toBe(200)
        expect(JSON.parse(answer.text)).toHaveLength(10_000)
      }))
  })
})
