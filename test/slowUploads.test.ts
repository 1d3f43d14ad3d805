import { describe, expect, layer } from "@effect/vitest"
import { sampleProducts } from "@retail/testkit"
import { Effect, Option } from "effect"
import { internalRequest, request } from "./support/Http.ts"
import type { LoadBody } from "./support/Loads.ts"
import { fileOf, formData } from "./support/Multipart.ts"
import { multipartBody, type PacedAnswer, pacedPost } from "./support/PacedUpload.ts"
import { baseUrl, internalBaseUrl, mintToken, TestServer } from "./support/TestServer.ts"

// Issue 17 points 5 and 6: no total deadline on a body that keeps coming; a body that stops (or
// trickles) is ended within UPLOAD_IDLE_TIMEOUT_MS and frees its file-load slot.

const IDLE_MS = 1000
const CAPACITY_KEY = "slow-uploads-key"
const run = crypto.randomUUID().slice(0, 8).toUpperCase()

const productsFile = (company: string, count: number) =>
  multipartBody({ name: "productsJson", content: JSON.stringify(sampleProducts(count, { prefix: `SLOW${run}-`, company })) })

/** The answer, or status 0 when none came within `seconds`. */
const within = (seconds: number) => (answer: Effect.Effect<PacedAnswer>) =>
  Effect.map(Effect.timeoutOption(answer, `${seconds} seconds`), Option.getOrElse((): PacedAnswer => ({ status: 0, body: "", ms: seconds * 1000 })))

const smallLoad = (token: string) => request("/v1/handle-json", { token, body: formData([["productsJson", fileOf("[]", "application/json")]]) })

describe("request bodies: slow ones go on, stalled ones are ended and free their slot", () => {
  layer(
    TestServer({
      UPLOAD_IDLE_TIMEOUT_MS: String(IDLE_MS),
      UPLOAD_MIN_BYTES_PER_SECOND: "1024",
      FILE_LOADS_PER_COMPANY: "1",
      INTERNAL_FILE_LOADS_PER_COMPANY: "1",
      CAPACITY_API_KEYS: CAPACITY_KEY
    }),
    { timeout: 120_000, excludeTestServices: true }
  )((it) => {
    it.effect("an upload at a steady slow rate, lasting several idle timeouts, completes with 200", () =>
      Effect.gen(function*() {
        const company = `SLOW${run}`
        const token = yield* mintToken({ scope: "products:write", company })
        const { body, contentType } = productsFile(company, 30)
        // A 50th of the file every 100 ms: about 5 s, several times the idle timeout, above the minimum rate.
        expect(body.length / 5).toBeGreaterThan(2 * 1024)
        const answer = yield* pacedPost(`${yield* baseUrl}/v1/handle-json`, { authorization: `Bearer ${token}`, "content-type": contentType }, body, {
          chunkBytes: Math.ceil(body.length / 50),
          everyMs: 100
        }).pipe(within(30))
        expect({ status: answer.status, lastedIdleTimeouts: answer.ms > 4 * IDLE_MS }).toEqual({ status: 200, lastedIdleTimeouts: true })
        expect(JSON.parse(answer.body) as LoadBody).toMatchObject({ message: expect.stringContaining("30 products are being processed") })
      }))

    it.effect("an upload that stops half-way is answered 408 within the idle timeout, and its company's slot is free again", () =>
      Effect.gen(function*() {
        const company = `STALL${run}`
        const token = yield* mintToken({ scope: "products:write", company })
        const { body, contentType } = productsFile(company, 30)
        const stalled = yield* pacedPost(`${yield* baseUrl}/v1/handle-json`, { authorization: `Bearer ${token}`, "content-type": contentType }, body, {
          chunkBytes: 4096,
          everyMs: 50,
          stallAfterBytes: Math.floor(body.length / 2)
        }).pipe(within(10))
        // Sending took about 0.2 s; then at most the idle timeout and a tick of it (plus a loaded machine's slack).
        expect({ status: stalled.status, prompt: stalled.ms < 0.5 * 1000 + IDLE_MS * 1.1 + 1000 }).toEqual({ status: 408, prompt: true })
        expect(JSON.parse(stalled.body)).toEqual({
          message: `The request body stopped arriving: nothing for ${IDLE_MS} ms (UPLOAD_IDLE_TIMEOUT_MS). Nothing was published.`
        })
        expect((yield* smallLoad(token)).status).toBe(200)
      }))

    it.effect("the same on the internal port: a stalled /handle-json-int frees the company's internal slot", () =>
      Effect.gen(function*() {
        const company = `ISTALL${run}`
        const { body, contentType } = multipartBody(
          { name: "productsJson", content: JSON.stringify(sampleProducts(30, { prefix: `ISTALL${run}-`, company })) },
          [["company", company]]
        )
        const stalled = yield* pacedPost(`${yield* internalBaseUrl}/v1/handle-json-int`, { "content-type": contentType }, body, {
          chunkBytes: 4096,
          everyMs: 50,
          stallAfterBytes: Math.floor(body.length / 2)
        }).pipe(within(10))
        expect(stalled.status).toBe(408)
        const again = yield* internalRequest("/v1/handle-json-int", {
          body: formData([["company", company], ["productsJson", fileOf("[]", "application/json")]])
        })
        expect(again.status).toBe(200)
      }))

    it.effect("a stalled JSON body (load-products, a consumption) gets its 408 {message} too, not a cut connection", () =>
      Effect.gen(function*() {
        const token = yield* mintToken({ scope: "products:write", company: `JSTALL${run}` })
        const base = yield* baseUrl
        const body = new TextEncoder().encode(JSON.stringify({ products: [], padding: "x".repeat(8000) }))
        const stalled = (path: string, bearer: string) =>
          pacedPost(`${base}${path}`, { authorization: `Bearer ${bearer}`, "content-type": "application/json" }, body, {
            chunkBytes: 2048,
            everyMs: 20,
            stallAfterBytes: 4096
          }).pipe(within(10))
        const answers = yield* Effect.all([
          stalled("/v1/load-products", token),
          stalled("/v1/delivery/capacity/consumptions", CAPACITY_KEY)
        ], { concurrency: "unbounded" })
        for (const answer of answers) {
          expect({ status: answer.status, body: answer.body }).toEqual({
            status: 408,
            body: JSON.stringify({ message: `The request body stopped arriving: nothing for ${IDLE_MS} ms (UPLOAD_IDLE_TIMEOUT_MS). Nothing was published.` })
          })
        }
      }))

    it.effect("a capacity body that stalls or trickles gets its 408 in its variant's format", () =>
      Effect.gen(function*() {
        const url = `${yield* baseUrl}/v1/delivery/capacity`
        const headers = { authorization: `Bearer ${CAPACITY_KEY}`, "content-type": "application/json" }
        const padding = "x".repeat(8000)
        const variantA = new TextEncoder().encode(JSON.stringify({ items: [], padding }))
        const variantB = new TextEncoder().encode(JSON.stringify({ saleChannel: "WEB", padding }))
        const [stalledA, stalledB, trickledA] = yield* Effect.all([
          pacedPost(url, headers, variantA, { chunkBytes: 2048, everyMs: 20, stallAfterBytes: 4096 }).pipe(within(10)),
          pacedPost(url, headers, variantB, { chunkBytes: 2048, everyMs: 20, stallAfterBytes: 4096 }).pipe(within(10)),
          // 400 bytes/s: never idle, under the 1024 bytes/s minimum.
          pacedPost(url, headers, variantA, { chunkBytes: 40, everyMs: 100 }).pipe(within(10))
        ], { concurrency: "unbounded" })
        const message = `the body arrived slower than 1024 bytes/s or not at all over ${IDLE_MS} ms (UPLOAD_IDLE_TIMEOUT_MS, UPLOAD_MIN_BYTES_PER_SECOND)`
        expect({ status: stalledA.status, body: stalledA.body }).toEqual({ status: 408, body: `Request timeout: ${message}` })
        expect({ status: stalledB.status, body: JSON.parse(stalledB.body) }).toEqual({
          status: 408,
          body: { code: "REQUEST_TIMEOUT", message, details: {} }
        })
        expect({ status: trickledA.status, body: trickledA.body }).toEqual({ status: 408, body: `Request timeout: ${message}` })
        expect(stalledA.ms).toBeLessThan(0.2 * 1000 + IDLE_MS * 2 + 1000)
      }))

    it.effect("an upload trickling under UPLOAD_MIN_BYTES_PER_SECOND is answered 408 and frees its slot", () =>
      Effect.gen(function*() {
        const company = `TRICKLE${run}`
        const token = yield* mintToken({ scope: "products:write", company })
        const { body, contentType } = productsFile(company, 30)
        // 400 bytes/s: a byte every so often (never idle), under the 1024 bytes/s minimum.
        const trickled = yield* pacedPost(`${yield* baseUrl}/v1/handle-json`, { authorization: `Bearer ${token}`, "content-type": contentType }, body, {
          chunkBytes: 40,
          everyMs: 100
        }).pipe(within(10))
        expect(trickled.status).toBe(408)
        expect((JSON.parse(trickled.body) as { message: string }).message).toContain("UPLOAD_MIN_BYTES_PER_SECOND")
        expect((yield* smallLoad(token)).status).toBe(200)
      }))
  })
})
