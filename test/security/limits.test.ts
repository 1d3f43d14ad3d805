import { describe, expect, layer } from "@effect/vitest"
import { sampleProducts } from "@retail/testkit"
import { Effect } from "effect"
import * as Http from "node:http"
import { internalRequest, postJson, request } from "../support/Http.ts"
import { type LoadBody, publishedEntries } from "../support/Loads.ts"
import { fileOf, formData } from "../support/Multipart.ts"
import { baseUrl, internalBaseUrl, mintToken, TestServer } from "../support/TestServer.ts"

const run = crypto.randomUUID().slice(0, 8).toUpperCase()
const KEY = "limits-key"
const OTHER_KEY = "limits-other-key"
const bearer = (key: string) => ({ authorization: `Bearer ${key}`, "content-type": "application/json" })

const capacity = (key: string, body = "{}") => request("/v1/delivery/capacity", { headers: bearer(key), body })

const tooMany = (response: { readonly status: number; readonly headers: Headers; readonly text: string }) => ({
  status: response.status,
  retryAfter: response.headers.get("retry-after"),
  body: response.headers.get("content-type")?.includes("json") ? JSON.parse(response.text) as unknown : response.text
})

describe("request rate per credential", () => {
  layer(
    TestServer({
      TOKEN_RATE_LIMIT_PER_SECOND: "0.2",
      TOKEN_RATE_LIMIT_BURST: "3",
      API_KEY_RATE_LIMIT_PER_SECOND: "0.2",
      API_KEY_RATE_LIMIT_BURST: "2",
      CAPACITY_API_KEYS: `${KEY},${OTHER_KEY}`
    }),
    { timeout: 120_000, excludeTestServices: true }
  )((it) => {
    it.effect("a company over its rate gets 429 with Retry-After on every JWT endpoint; other companies go on", () =>
      Effect.gen(function*() {
        const acme = yield* mintToken({ scope: "products:write products:read", company: `RATE${run}` })
        const acmeAgain = yield* mintToken({ scope: "products:write", company: `RATE${run}`, sub: "another-user" })
        const other = yield* mintToken({ scope: "products:write products:read", company: `RATE2${run}` })
        for (let i = 0; i < 3; i++) expect((yield* request(`/v1/loads/${crypto.randomUUID()}`, { token: acme })).status).toBe(404)
        const before = yield* publishedEntries
        const refused = yield* postJson("/v1/load-products", { products: sampleProducts(1, { prefix: `RATE${run}-` }) }, acmeAgain)
        expect(tooMany(refused)).toEqual({
          status: 429,
          retryAfter: "5",
          body: { message: "Too many requests for this company; retry after 5 s" }
        })
        expect(yield* publishedEntries).toBe(before)
        expect((yield* request(`/v1/loads/${crypto.randomUUID()}`, { token: acme })).status).toBe(429)
        expect((yield* request(`/v1/loads/${crypto.randomUUID()}`, { token: other })).status).toBe(404)
        // A rejected token is 401, never counted nor limited.
        expect((yield* request(`/v1/loads/${crypto.randomUUID()}`, { token: "forged" })).status).toBe(401)
      }))

    it.effect("an API key over its rate gets 429 with Retry-After on the fast lane and the administration endpoints alike", () =>
      Effect.gen(function*() {
        expect((yield* capacity(KEY)).status).toBe(400)
        expect((yield* request("/v1/network", { headers: bearer(KEY) })).status).toBe(200)
        expect(tooMany(yield* capacity(KEY))).toEqual({
          status: 429,
          retryAfter: "5",
          body: "Too many requests for this API key; retry after 5 s"
        })
        const admin = yield* request("/v1/network", { headers: bearer(KEY) })
        expect(admin.status).toBe(429)
        expect(admin.headers.get("retry-after")).toBe("5")
        expect((yield* capacity(OTHER_KEY)).status).toBe(400)
        expect((yield* capacity("unknown-key")).status).toBe(401)
        // A variant B body gets variant B's error body for its 429 too.
        const bodyB = JSON.stringify({ purchaseDate: "2027-03-01", saleChannel: "WEB" })
        expect((yield* capacity(OTHER_KEY, bodyB)).status).toBe(400)
        expect(tooMany(yield* capacity(OTHER_KEY, bodyB))).toEqual({
          status: 429,
          retryAfter: "5",
          body: { code: "TOO_MANY_REQUESTS", message: "too many requests for this API key; retry after 5 s", details: {} }
        })
      }))
  })
})

/**
 * The answer to a company's file load beyond its limit of 1 (FILE_LOADS_PER_COMPANY, or
 * INTERNAL_FILE_LOADS_PER_COMPANY on the internal listener); Retry-After: the default 5 s.
 */
const busyCompany = (company: string, setting: "FILE_LOADS_PER_COMPANY" | "INTERNAL_FILE_LOADS_PER_COMPANY" = "FILE_LOADS_PER_COMPANY") => ({
  status: 429,
  retryAfter: "5",
  body: {
    message: `Company ${company} already has 1 file loads in progress (${setting}); retry after 5 s`
  }
})

/** Where a held file load is sent: the public /handle-json with a token, or /handle-json-int with a company part. */
type HeldTarget = { readonly token: string } | { readonly internalCompany: string }

/** A file load whose file part is left open until `finish` is called (torn down with the scope otherwise). */
const openFileLoad = (target: HeldTarget) =>
  Effect.flatMap(Effect.all([baseUrl, internalBaseUrl]), ([publicBase, internalBase]) => {
    const base = "token" in target ? publicBase : internalBase
    return Effect.acquireRelease(
      Effect.sync(() => {
        const boundary = `held-${run}`
        const req = Http.request(new URL("token" in target ? "/v1/handle-json" : "/v1/handle-json-int", base), {
          method: "POST",
          headers: {
            ...("token" in target ? { authorization: `Bearer ${target.token}` } : {}),
            "content-type": `multipart/form-data; boundary=${boundary}`
          }
        })
        let answered = false
        const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
          req.on("response", (response) => {
            let body = ""
            response.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")))
            response.on("end", () => {
              answered = true
              resolve({ status: response.statusCode ?? 0, body })
            })
          })
          req.on("error", reject)
        })
        const company = "token" in target ? "" : `--${boundary}\r\nContent-Disposition: form-data; name="company"\r\n\r\n${target.internalCompany}\r\n`
        req.write(`${company}--${boundary}\r\nContent-Disposition: form-data; name="productsJson"; filename="p.json"\r\nContent-Type: application/json\r\n\r\n[`)
        return {
          req,
          /** Whether the server has answered already (it refused the load) while its file is still open. */
          answered: () => answered,
          finish: () => Effect.promise(() => (req.end(`]\r\n--${boundary}--\r\n`), answer))
        }
      }),
      ({ req }) => Effect.sync(() => req.destroy())
    )
  })

const pause = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

/**
 * A held file load of `token`'s company once it owns the company's one slot, and the 429 a probe
 * got meanwhile. A probe is a load too: on a busy machine one can take the slot just before the
 * held load asks for it, and the held load is refused; it is then opened again.
 */
const holdSlot = <E, R>(target: HeldTarget, probe: Effect.Effect<{ readonly status: number; readonly headers: Headers; readonly text: string }, E, R>) =>
  Effect.gen(function*() {
    for (let attempt = 1; attempt <= 5; attempt++) {
      const held = yield* openFileLoad(target)
      // Time for node to send the held request before the first probe (longer after each refusal).
      yield* pause(10 * attempt ** 2)
      for (let poll = 0; poll < 500 && !held.answered(); poll++) {
        const answer = yield* probe
        if (answer.status === 429) return { held, refused: answer }
        yield* pause(20)
      }
    }
    return yield* Effect.die(new Error("no held file load kept its company's slot in 5 tries"))
  })

describe("body sizes, multipart parts and file loads in flight", () => {
  layer(
    TestServer({
      REQUEST_MAX_BYTES: "4096",
      CAPACITY_MAX_BODY_BYTES: "2048",
      LOAD_PRODUCTS_MAX_BYTES: "8192",
      MULTIPART_MAX_PARTS: "1",
      MULTIPART_MAX_FIELD_BYTES: "100",
      FILE_LOADS_PER_COMPANY: "1",
      CAPACITY_API_KEYS: KEY
    }),
    { timeout: 120_000, excludeTestServices: true }
  )((it) => {
    it.effect("each endpoint refuses a body over its own limit with 413", () =>
      Effect.gen(function*() {
        const token = yield* mintToken({ scope: "products:write", company: "ACME" })
        const padding = "x".repeat(5000)
        const network = yield* request("/v1/network", { method: "PUT", headers: bearer(KEY), body: JSON.stringify({ padding }) })
        expect({ status: network.status, body: network.json() }).toEqual({
          status: 413,
          body: { message: "The request body is larger than the limit of 4096 bytes (REQUEST_MAX_BYTES)" }
        })
        const consume = yield* request("/v1/delivery/capacity/consumptions", { headers: bearer(KEY), body: JSON.stringify({ orderId: padding, uses: [] }) })
        expect(consume.status).toBe(413)
        const lane = yield* capacity(KEY, JSON.stringify({ padding: "x".repeat(3000) }))
        expect({ status: lane.status, body: lane.text }).toEqual({ status: 413, body: "Payload too large: at most 2048 bytes" })
        const before = yield* publishedEntries
        const products = yield* postJson("/v1/load-products", { products: sampleProducts(8, { prefix: `BIG${run}-` }) }, token)
        expect(products.status).toBe(413)
        expect(yield* publishedEntries).toBe(before)
        // File parts have their own limit (FILE_MAX_BYTES), not REQUEST_MAX_BYTES.
        const file = yield* request("/v1/handle-json", {
          token,
          body: formData([["productsJson", fileOf(JSON.stringify(sampleProducts(8, { prefix: `FILE${run}-` })), "application/json")]])
        })
        expect({ status: file.status, body: file.json() }).toMatchObject({ status: 200, body: { message: expect.stringContaining("8 products") } })
      }))

    it.effect("too many parts, an unknown field or an oversized field is refused and publishes nothing", () =>
      Effect.gen(function*() {
        const token = yield* mintToken({ scope: "products:write", company: "ACME" })
        const before = yield* publishedEntries
        const post = (parts: ReadonlyArray<readonly [string, string | Blob]>) => request("/v1/handle-json", { token, body: formData(parts) })
        const file = fileOf("[]", "application/json")
        const cases = [
          [yield* post([["productsJson", file], ["productsJson", file]]), 400, "The multipart body has more than 1 parts (MULTIPART_MAX_PARTS)"],
          [yield* post([["company", "OTHER"], ["productsJson", file]]), 400, "The field company is not taken by this endpoint (it takes fields: none)"],
        ] as const
        for (const [response, status, message] of cases) {
          expect({ status: response.status, body: response.json() }).toMatchObject({ status, body: { message } })
        }
        // A field over MULTIPART_MAX_FIELD_BYTES stops the parser; node's part stream then ends without the
        // parser's error (platform-node-shared), so what the caller learns is that the file never came.
        const oversized = yield* post([["note", "y".repeat(200)], ["productsJson", file]])
        expect({ status: oversized.status, body: oversized.json() }).toMatchObject({
          status: 400,
          body: { message: "The multipart part productsJson (a file) is required" }
        })
        expect(yield* publishedEntries).toBe(before)
      }))

    it.effect("a company's file loads beyond FILE_LOADS_PER_COMPANY are 429 with Retry-After until one ends", () =>
      Effect.gen(function*() {
        const company = `SLOT${run}`
        const token = yield* mintToken({ scope: "products:write", company })
        const other = yield* mintToken({ scope: "products:write", company: `${company}-B` })
        const small = () => formData([["productsJson", fileOf("[]", "application/json")]])
        const { held: first, refused } = yield* holdSlot({ token }, request("/v1/handle-json", { token, body: small() }))
        expect(tooMany(refused)).toEqual(busyCompany(company))
        expect((yield* request("/v1/handle-json", { token: other, body: small() })).status).toBe(200)
        const finished = yield* first.finish()
        expect(finished.status).toBe(200)
        expect((JSON.parse(finished.body) as LoadBody).message).toContain("0 products are being processed")
        expect((yield* request("/v1/handle-json", { token, body: small() })).status).toBe(200)
      }))
  })
})

describe("file loads in flight on the internal listener", () => {
  layer(TestServer({ FILE_LOADS_PER_COMPANY: "1", INTERNAL_FILE_LOADS_PER_COMPANY: "1" }), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("a company's /handle-json-int loads have slots of their own: internal loads cannot exhaust its public ones", () =>
      Effect.gen(function*() {
        const company = `ISLOT${run}`
        const token = yield* mintToken({ scope: "products:write", company })
        const internal = (forCompany: string) =>
          internalRequest("/v1/handle-json-int", {
            body: formData([["company", forCompany], ["productsJson", fileOf(JSON.stringify(sampleProducts(2, { prefix: `${forCompany}-` })), "application/json")]])
          })
        const publicLoad = () => request("/v1/handle-json", { token, body: formData([["productsJson", fileOf("[]", "application/json")]]) })
        // A stalled internal upload holds the company's one internal slot...
        const { held: first } = yield* holdSlot({ internalCompany: company }, internal(company))
        const before = yield* publishedEntries
        const refused = yield* internal(company)
        expect(tooMany(refused)).toEqual(busyCompany(company, "INTERNAL_FILE_LOADS_PER_COMPANY"))
        expect(yield* publishedEntries).toBe(before)
        // ...but not its public one.
        expect((yield* publicLoad()).status).toBe(200)
        expect((yield* internal(`${company}-B`)).status).toBe(200)
        expect((yield* first.finish()).status).toBe(200)
        expect((yield* internal(company)).status).toBe(200)
      }))
  })
})
