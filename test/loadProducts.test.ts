import { describe, expect, layer } from "@effect/vitest"
import { sampleProduct, sampleProducts } from "@retail/testkit"
import { Effect, Option } from "effect"
import { ProductRepository } from "@retail/store"
import { SqlClient } from "effect/sql"
import { type LoadBody, loadView, publishedEntries } from "./support/Loads.ts"
import { eventually, postJson, request } from "./support/Http.ts"
import { scrape } from "./support/Prometheus.ts"
import { pacedPost } from "./support/PacedUpload.ts"
import { baseUrl, mintToken, TestServer, TestSettings } from "./support/TestServer.ts"

/**
 * The same products through both ways of /load-products (split for the validation threads, or
 * parsed whole on the event loop) answer and are stored alike, whatever format their batches take.
 */
const storedAlikeEitherWay =
  Effect.gen(function*() {
    const token = yield* mintToken({ scope: "products:write products:read", company: "ACME" })
    const run = crypto.randomUUID().slice(0, 8).toUpperCase()
    const split = `EQS${run}`
    const whole = `EQW${run}`
    // Unknown keys (re-encoded), escapes and formatting (kept as sent), failures, a duplicate, an element that is no object.
    const productsOf = (prefix: string) => {
      const good = sampleProducts(4, { prefix })
      return [
        good[0]!,
        { ...good[1]!, extra: { nested: [1, 2] }, another: "x" },
        { ...good[2]!, price: -1 },
        42,
        { ...good[3]!, description: "caf\u00e9 \"quoted\" \\ tab\t" },
        { ...good[0]!, skuCode: `${prefix}-DUP` }
      ] as const
    }
    const send = (body: string) => request("/v1/load-products", { token, body, headers: { "content-type": "application/json" } })
    // Only `{"products":[...]}` is split; another key beside it sends the body the general way.
    const answers = [
      yield* send(JSON.stringify({ products: productsOf(split) }, null, 2).replace("é", "\\u00e9")),
      yield* send(JSON.stringify({ products: productsOf(whole), note: "parsed whole" }))
    ].map((response) => {
      expect(response.status).toBe(200)
      return response.json() as LoadBody
    })
    const [splitBody, wholeBody] = answers as [LoadBody, LoadBody]
    expect(JSON.stringify({ ...splitBody, processCode: "" }).replaceAll(split, "EQ")).toBe(
      JSON.stringify({ ...wholeBody, processCode: "" }).replaceAll(whole, "EQ")
    )
    expect(splitBody).toMatchObject({ total: 6, processing: 3, failed: 3 })

    for (const body of answers) yield* eventually(loadView(body.processCode, token), (v) => v.status === "COMPLETED_WITH_ERRORS")
    const repository = yield* ProductRepository
    const stored = (prefix: string) =>
      Effect.forEach([0, 1, 4], (i) => {
        const product = productsOf(prefix)[i] as { readonly productCode: string }
        return Effect.map(Effect.orDie(repository.findProduct("ACME", product.productCode)), (found) => JSON.stringify(Option.getOrNull(found)).replaceAll(prefix, "EQ"))
      })
    const fromSplit = yield* stored(split)
    expect(fromSplit).toEqual(yield* stored(whole))
    expect(fromSplit.every((product) => product !== "null")).toBe(true)
    expect(fromSplit.join()).not.toContain("extra")
    expect(fromSplit[2]).toContain("caf\u00e9 \\\"quoted\\\" \\\\ tab\\t")
  })

describe("POST /v1/load-products", () => {
  layer(TestServer(), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("a valid load of 3000 reaches COMPLETED with every product and its children in the database", () =>
      Effect.gen(function*() {
        const token = yield* mintToken({ scope: "products:write", company: "ACME" })
        const products = sampleProducts(3000, { prefix: "FULL" })
        const response = yield* postJson("/v1/load-products", { products }, token)
        expect(response.status).toBe(200)
        const body = response.json() as LoadBody
        expect(body.message).toBe(`3000 products are being processed; process code ${body.processCode}`)
        expect(body).not.toHaveProperty("errors")

        const done = yield* eventually(loadView(body.processCode, token), (v) => v.status === "COMPLETED")
        expect(done.totals).toEqual({ received: 3000, accepted: 3000, persisted: 3000, failed: 0 })
        expect(done.source).toBe("LOAD_PRODUCTS")

        const sql = yield* SqlClient.SqlClient
        // By the load's own codes, which the primary key finds whatever else the database holds.
        const codes = sql.in(products.map((product) => product.productCode))
        const counts = yield* sql<{ products: string; barcodes: string; hierarchies: string; attributes: string }>`
          SELECT
            (SELECT count(*) FROM products WHERE company = 'ACME' AND product_code IN ${codes})::text AS products,
            (SELECT count(*) FROM product_barcodes WHERE company = 'ACME' AND product_code IN ${codes})::text AS barcodes,
            (SELECT count(*) FROM product_hierarchies WHERE company = 'ACME' AND product_code IN ${codes})::text AS hierarchies,
            (SELECT count(*) FROM product_attributes WHERE company = 'ACME' AND product_code IN ${codes})::text AS attributes`
        expect(counts[0]).toEqual({ products: "3000", barcodes: "6000", hierarchies: "6000", attributes: "9000" })
        const stored = yield* sql<{ description: string; price: number; weight: number }>`
          SELECT description, price, weight FROM products WHERE company = 'ACME' AND product_code = ${products[1234]!.productCode}`
        expect(stored[0]).toEqual({ description: products[1234]!.description, price: products[1234]!.price, weight: 1.8 })
      }))

    it.effect("a mixed load answers LoadSummary with the failed SKUs and reasons, and persists the rest", () =>
      Effect.gen(function*() {
        const token = yield* mintToken({ scope: "products:write products:read", company: "ACME" })
        const good = sampleProducts(5, { prefix: "MIX" })
        const noHierarchy = { ...sampleProduct(100, { prefix: "MIX" }), hierarchies: [] }
        const badPrice = { ...sampleProduct(101, { prefix: "MIX" }), price: "free" }
        const noSku: Record<string, unknown> = { ...sampleProduct(102, { prefix: "MIX" }) }
        delete noSku["skuCode"]
        const duplicate = { ...good[0]!, skuCode: "SKU-DUP" }
        const response = yield* postJson("/v1/load-products", { products: [...good, noHierarchy, badPrice, noSku, duplicate] }, token)
        expect(response.status).toBe(200)
        const body = response.json() as LoadBody
        expect(body).toMatchObject({ total: 9, processing: 5, failed: 4 })
        expect(body.errors).toEqual([
          { sku: noHierarchy.skuCode, error: "hierarchies: must contain at least one item" },
          { sku: badPrice.skuCode, error: "price: must be a number" },
          { sku: "", error: "skuCode: is required" },
          { sku: "SKU-DUP", error: `productCode: ${good[0]!.productCode} already appears at products[0] of this load; the first occurrence wins` }
        ])

        const done = yield* eventually(loadView(body.processCode, token), (v) => v.status === "COMPLETED_WITH_ERRORS")
        expect(done.totals).toEqual({ received: 9, accepted: 5, persisted: 5, failed: 4 })

        const errors = yield* request(`/v1/loads/${body.processCode}/errors?limit=3`, { token })
        const page = errors.json() as { errors: ReadonlyArray<{ sku: string }>; nextCursor: string | null }
        expect(page.errors.map((e) => e.sku)).toEqual([noHierarchy.skuCode, badPrice.skuCode, ""])
        expect(page.nextCursor).not.toBeNull()
        const rest = yield* request(`/v1/loads/${body.processCode}/errors?limit=3&cursor=${page.nextCursor}`, { token })
        expect(rest.json()).toMatchObject({ errors: [{ sku: "SKU-DUP" }], nextCursor: null })
      }))

    it.effect("the same products answer and are stored alike whether the body is split for the threads or parsed whole", () => storedAlikeEitherWay)

    it.effect("a bad cursor or limit of the errors page is 400 ErrorMessage naming the parameter and the reason", () =>
      Effect.gen(function*() {
        const token = yield* mintToken({ scope: "products:write products:read", company: "ACME" })
        const failing = { ...sampleProduct(0, { prefix: "PAGE" }), hierarchies: [] }
        const body = (yield* postJson("/v1/load-products", { products: [failing] }, token)).json() as LoadBody
        const errorsPage = (query: string) => request(`/v1/loads/${body.processCode}/errors?${query}`, { token })
        const cursorReason = (got: string) => `cursor: must be a value returned as nextCursor (got ${got})`
        const limitReason = (got: string) => `limit: must be a whole number from 1 to 1000 (got ${got})`
        const cases = [
          ["cursor=abc", cursorReason("abc")],
          ["cursor=-1", cursorReason("-1")],
          ["limit=abc", limitReason("abc")],
          ["limit=0", limitReason("0")],
          ["limit=5000", limitReason("5000")],
          ["limit=1.5", limitReason("1.5")],
          ["limit=", limitReason("")],
          ["limit=5&limit=6", "limit: is given more than once"]
        ] as const
        for (const [query, message] of cases) {
          const response = yield* errorsPage(query)
          expect({ query, status: response.status, body: response.json() }).toEqual({
            query,
            status: 400,
            body: { message }
          })
        }
        expect((yield* errorsPage("limit=1000")).json()).toMatchObject({ errors: [{ sku: failing.skuCode }], nextCursor: null })
      }))

    it.effect("more than 3000 products is a 400 naming the limit, and nothing is published", () =>
      Effect.gen(function*() {
        const token = yield* mintToken()
        const before = yield* publishedEntries
        const response = yield* postJson("/v1/load-products", { products: sampleProducts(3001, { prefix: "MAX" }) }, token)
        expect(response.status).toBe(400)
        expect(response.json()).toEqual({ message: "The maximum number of products per load is 3000; this load has 3001" })
        expect(yield* publishedEntries).toBe(before)
      }))

    it.effect("bodies that are not a products list are refused with a message naming the problem", () =>
      Effect.gen(function*() {
        const token = yield* mintToken()
        const raw = (body: string, contentType = "application/json") =>
          request("/v1/load-products", { token, body, headers: { "content-type": contentType } })
        const cases = [
          [yield* raw("{\"products\": [1,"), 400, "The request body is not valid JSON"],
          [yield* raw("[]"), 400, "The request body must be a JSON object with a products array"],
          [yield* raw("{\"items\": []}"), 400, "products: is required"],
          [yield* raw("{\"products\": {}}"), 400, "products: must be an array"],
          [yield* raw(""), 400, "The request body is empty"],
          [yield* raw("{\"products\": []}", "text/plain"), 415, "Content-Type must be application/json"]
        ] as const
        for (const [response, status, message] of cases) {
          expect({ status: response.status, message: (response.json() as { message: string }).message }).toMatchObject({
            status,
            message: expect.stringContaining(message)
          })
        }
        const invalidUtf8 = yield* request("/v1/load-products", {
          token,
          headers: { "content-type": "application/json" },
          body: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d])
        })
        expect(invalidUtf8.status).toBe(400)
        expect(invalidUtf8.json()).toEqual({ message: "The request body is not valid UTF-8" })
      }))

    it.effect("an empty products list is accepted and completes at once", () =>
      Effect.gen(function*() {
        const token = yield* mintToken()
        const response = yield* postJson("/v1/load-products", { products: [] }, token)
        const body = response.json() as LoadBody
        expect(body.message).toBe(`0 products are being processed; process code ${body.processCode}`)
        expect((yield* loadView(body.processCode, token)).status).toBe("COMPLETED")
      }))

    it.effect("credentials: 401 and 403 with an empty body", () =>
      Effect.gen(function*() {
        const products = sampleProducts(1, { prefix: "AUTH" })
        const expired = yield* mintToken(undefined, { expiresIn: Math.floor(Date.now() / 1000) - 60 })
        const notYet = yield* mintToken(undefined, { notBefore: Math.floor(Date.now() / 1000) + 3600 })
        const wrongKey = yield* mintToken(undefined, { secret: "another-secret-another-secret-0000" })
        const noScope = yield* mintToken({ scope: "products:read", company: "ACME" })
        const noCompany = yield* mintToken({ scope: "products:write" })
        const cases: ReadonlyArray<readonly [string | undefined, number]> = [
          [undefined, 401],
          ["not-a-jwt", 401],
          [expired, 401],
          [notYet, 401],
          [wrongKey, 401],
          [noScope, 403],
          [noCompany, 403]
        ]
        for (const [token, status] of cases) {
          const response = yield* postJson("/v1/load-products", { products }, token)
          expect({ token, status: response.status, body: response.text }).toEqual({ token, status, body: "" })
        }
      }))

    it.effect("a load starts when its request does: createdAt is before the last byte of a slow body", () =>
      Effect.gen(function*() {
        const token = yield* mintToken({ scope: "products:write products:read", company: "ACME" })
        const body = new TextEncoder().encode(JSON.stringify({ products: sampleProducts(3, { prefix: "START" }) }))
        const url = `${yield* baseUrl}/v1/load-products`
        const sent = Date.now()
        // Three chunks 150 ms apart: the headers go with the first, the body ends about 300 ms later.
        const answer = yield* pacedPost(url, { "content-type": "application/json", authorization: `Bearer ${token}` }, body, {
          chunkBytes: Math.ceil(body.length / 3),
          everyMs: 150
        })
        expect(answer.status, answer.body).toBe(200)
        const answered = sent + answer.ms
        const view = (yield* request(`/v1/loads/${(JSON.parse(answer.body) as LoadBody).processCode}`, { token })).json() as { readonly createdAt: string }
        const createdAt = Date.parse(view.createdAt)
        expect(createdAt).toBeGreaterThanOrEqual(sent - 5)
        // Recorded once the body was read, it would be within a few ms of the answer.
        expect(answered - createdAt).toBeGreaterThan(200)
      }))

    it.effect("a load is visible to its own company only; others get the same 404 as an unknown code", () =>
      Effect.gen(function*() {
        const acme = yield* mintToken({ scope: "products:write", company: "ACME" })
        const other = yield* mintToken({ scope: "products:write products:read", company: "OTHER" })
        const body = (yield* postJson("/v1/load-products", { products: sampleProducts(2, { prefix: "VIS" }) }, acme)).json() as LoadBody
        expect((yield* request(`/v1/loads/${body.processCode}`, { token: acme })).status).toBe(200)
        const hidden = yield* request(`/v1/loads/${body.processCode}`, { token: other })
        const unknown = yield* request(`/v1/loads/${crypto.randomUUID()}`, { token: other })
        expect(hidden.status).toBe(404)
        expect(unknown.status).toBe(404)
        expect((yield* request("/v1/loads/not-a-uuid", { token: acme })).status).toBe(404)
      }))

    it.effect("health, readiness and the OpenAPI document", () =>
      Effect.gen(function*() {
        expect((yield* request("/health")).json()).toEqual({ status: "ok" })
        const ready = (yield* request("/ready")).json() as { durability: { database: string; queue: string } }
        expect(ready).toMatchObject({ status: "ready", checks: { database: "up", queue: "up" }, queueLosses: [] })
        // Says what a restart keeps in the mode that runs: the tests run in memory, or on real servers.
        expect(ready.durability.database).toMatch(process.env["DATABASE_URL"] ? /DATABASE_URL/ : /in memory/)
        expect(ready.durability.queue).toMatch(
          process.env["REDIS_URL"] ? /Redis/ : process.env["DATABASE_URL"] ? /PostgreSQL queue/ : /in-process queue/
        )
        const openapi = (yield* request("/v1/openapi.json")).json() as {
          info: { version: string }
          paths: Record<string, {
            post?: { security?: unknown; responses?: Record<string, unknown> }
            get?: { parameters?: ReadonlyArray<{ name: string; in: string; required: boolean; schema: unknown }> }
          }>
          components: { securitySchemes: Record<string, { scheme: string; bearerFormat?: string }> }
        }
        expect(openapi.info.version).toBe("1.0.0")
        expect(openapi.paths["/v1/load-products"]?.post?.security).toEqual([{ bearer: [] }])
        // A body that stalls is answered 408 (UPLOAD_IDLE_TIMEOUT_MS): the contract says so.
        for (const path of ["/v1/load-products", "/v1/handle-json", "/v1/handle-csv"]) {
          expect(Object.keys(openapi.paths[path]?.post?.responses ?? {}), path).toContain("408")
        }
        const errorsPage = openapi.paths["/v1/loads/{processCode}/errors"]?.get
        expect(errorsPage?.parameters?.find((p) => p.name === "limit")).toMatchObject({
          in: "query",
          required: false,
          schema: { type: "integer", minimum: 1, maximum: 1000, default: 100 }
        })
        expect(openapi.components.securitySchemes["bearer"]).toMatchObject({ scheme: "bearer", bearerFormat: "JWT" })
        expect((yield* request("/v1/docs")).status).toBe(200)
      }))
  })
})

describe("POST /v1/load-products with BATCH_ENTRY_FORMAT=columns (by default it publishes JSON)", () => {
  layer(TestServer({ BATCH_ENTRY_FORMAT: "columns" }), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("the same products answer and are stored alike whether the body is split for the threads or parsed whole", () => storedAlikeEitherWay)
  })
})

describe.runIf(process.env["REDIS_URL"])("POST /v1/load-products while Redis is unreachable", () => {
  layer(TestServer({ REDIS_URL: "redis://127.0.0.1:1", REDIS_PUBLISH_TIMEOUT_MS: "1000" }), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("answers 500 with ErrorMessage and records the load as FAILED", () =>
      Effect.gen(function*() {
        const token = yield* mintToken({ scope: "products:write products:read", company: "ACME" })
        const response = yield* postJson("/v1/load-products", { products: sampleProducts(3, { prefix: "DOWN" }) }, token)
        expect(response.status).toBe(500)
        const message = (response.json() as { message: string }).message
        expect(message).toContain("could not be sent to the messaging system")
        const processCode = /load ([0-9a-f-]{36})/.exec(message)?.[1] ?? ""
        const view = yield* loadView(processCode, token)
        expect(view.status).toBe("FAILED")
        expect(view.totals.persisted).toBe(0)
        // The failed publish is counted, and no entry as published.
        const metrics = yield* scrape
        const stream = (yield* TestSettings)["PRODUCT_BATCHES_STREAM"]!
        expect(metrics.value("queue_publish_failures_total", { stream })).toBe(1)
        expect(metrics.value("queue_published_entries_total", { stream })).toBe(0)
      }))
  })
})
