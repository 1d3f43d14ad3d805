import { describe, expect, layer } from "@effect/vitest"
import { sampleProduct, sampleProducts } from "@retail/testkit"
import { Effect } from "effect"
import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type LoadBody, loadView, productCounts, publishedEntries } from "./support/Loads.ts"
import { eventually, request } from "./support/Http.ts"
import { fileOf, formData } from "./support/Multipart.ts"
import { mintToken, TestServer } from "./support/TestServer.ts"

// Run-unique prefixes: counts by prefix must see neither other tests' products nor earlier runs' on a real database.
const run = crypto.randomUUID().slice(0, 8).toUpperCase()
const whole = `HJW${run}-`
const broken = `HJB${run}-`

const postJsonFile = (text: string, token: string) =>
  request("/v1/handle-json", { token, body: formData([["productsJson", fileOf(text, "application/json")]]) })

describe("POST /v1/handle-json", () => {
  layer(TestServer(), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("a products file of 600 reaches COMPLETED with every product and its children in the database", () =>
      Effect.gen(function*() {
        const token = yield* mintToken({ scope: "products:write products:read", company: "ACME" })
        const products = sampleProducts(600, { prefix: whole })
        const response = yield* postJsonFile(JSON.stringify({ products }), token)
        expect(response.status).toBe(200)
        const body = response.json() as LoadBody
        expect(body.message).toBe(`600 products are being processed; process code ${body.processCode}`)
        const done = yield* eventually(loadView(body.processCode, token), (v) => v.status === "COMPLETED")
        expect(done.totals).toEqual({ received: 600, accepted: 600, persisted: 600, failed: 0 })
        expect(done.source).toBe("HANDLE_JSON")
        expect(yield* productCounts(whole)).toEqual({ products: "600", barcodes: "1200", hierarchies: "1200", attributes: "1800" })
      }))

    it.effect("a top-level array with failing products answers LoadSummary and records every error on the load", () =>
      Effect.gen(function*() {
        const token = yield* mintToken({ scope: "products:write products:read", company: "ACME" })
        const good = sampleProducts(3, { prefix: "HJA" })
        const noHierarchy = { ...sampleProduct(100, { prefix: "HJA" }), hierarchies: [] }
        const otherCompany = { ...sampleProduct(101, { prefix: "HJA" }), companyCode: "OTHER" }
        const response = yield* postJsonFile(JSON.stringify([...good, noHierarchy, otherCompany]), token)
        expect(response.status).toBe(200)
        const body = response.json() as LoadBody
        expect(body).toMatchObject({ total: 5, processing: 3, failed: 2 })
        expect(body.errors).toEqual([
          { sku: noHierarchy.skuCode, error: "hierarchies: must contain at least one item" },
          { sku: otherCompany.skuCode, error: "companyCode: is OTHER but this load is for company ACME" }
        ])
        const done = yield* eventually(loadView(body.processCode, token), (v) => v.status === "COMPLETED_WITH_ERRORS")
        expect(done.totals).toEqual({ received: 5, accepted: 3, persisted: 3, failed: 2 })
        const errors = yield* request(`/v1/loads/${body.processCode}/errors`, { token })
        expect((errors.json() as { errors: ReadonlyArray<unknown> }).errors).toHaveLength(2)
      }))

    it.effect("a file broken after many products is 400 saying where, and publishes nothing", () =>
      Effect.gen(function*() {
        const token = yield* mintToken({ scope: "products:write", company: "ACME" })
        const before = yield* publishedEntries
        const text = JSON.stringify({ products: sampleProducts(600, { prefix: broken }) })
        const response = yield* postJsonFile(text.slice(0, text.length - 30), token)
        expect(response.status).toBe(400)
        expect((response.json() as { message: string }).message).toMatch(/^productsJson is not a well-formed products file: .* at byte \d+ \(line 1, column \d+\)/)
        expect(yield* publishedEntries).toBe(before)
        expect(yield* productCounts(broken)).toMatchObject({ products: "0" })
      }))

    it.effect("a request without the productsJson part is 400 naming it; a part of another name is 400 naming both", () =>
      Effect.gen(function*() {
        const token = yield* mintToken({ scope: "products:write", company: "ACME" })
        const missing = yield* request("/v1/handle-json", { token, body: formData([]) })
        expect(missing.status).toBe(400)
        expect(missing.json()).toMatchObject({ message: "The multipart part productsJson (a file) is required" })
        const other = yield* request("/v1/handle-json", { token, body: formData([["other", fileOf("[]")]]) })
        expect(other.status).toBe(400)
        expect(other.json()).toMatchObject({ message: "The file part other is not taken by this endpoint (it takes file parts: productsJson)" })
      }))

    it.effect("no token is 401; a token without products:write is 403", () =>
      Effect.gen(function*() {
        const body = formData([["productsJson", fileOf("[]")]])
        expect((yield* request("/v1/handle-json", { body })).status).toBe(401)
        const token = yield* mintToken({ scope: "products:read", company: "ACME" })
        expect((yield* request("/v1/handle-json", { token, body })).status).toBe(403)
      }))
  })
})

describe("POST /v1/handle-json with small limits", () => {
  layer(TestServer({ FILE_MAX_BYTES: "20000", RESPONSE_ERRORS_CAP: "2" }), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("a file over FILE_MAX_BYTES is 413 and publishes nothing", () =>
      Effect.gen(function*() {
        const token = yield* mintToken({ scope: "products:write", company: "ACME" })
        const before = yield* publishedEntries
        const response = yield* postJsonFile(JSON.stringify(sampleProducts(40, { prefix: "HJL" })), token)
        expect(response.status).toBe(413)
        expect(yield* publishedEntries).toBe(before)
      }))

    it.effect("the response carries at most RESPONSE_ERRORS_CAP errors; the load has them all", () =>
      Effect.gen(function*() {
        const token = yield* mintToken({ scope: "products:write products:read", company: "ACME" })
        const failing = [1, 2, 3, 4].map((i) => ({ ...sampleProduct(i, { prefix: "HJC" }), hierarchies: [] }))
        const response = yield* postJsonFile(JSON.stringify({ products: failing }), token)
        expect(response.status).toBe(200)
        const body = response.json() as LoadBody
        expect(body).toMatchObject({ total: 4, processing: 0, failed: 4 })
        expect(body.errors).toHaveLength(2)
        yield* eventually(loadView(body.processCode, token), (v) => v.status === "COMPLETED_WITH_ERRORS")
        const errors = yield* request(`/v1/loads/${body.processCode}/errors`, { token })
        expect((errors.json() as { errors: ReadonlyArray<unknown> }).errors).toHaveLength(4)
      }))
  })
})

describe("POST /v1/handle-json with its productCodes spilled to disk", () => {
  const spoolDir = mkdtempSync(join(tmpdir(), "handle-json-spill-"))
  const narrow = `HJN${run}-`
  const wide = `HJΩ${run}-`
  layer(TestServer({ PRODUCT_CODES_IN_MEMORY: "3", SPOOL_DIR: spoolDir }), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("fails every later occurrence of a productCode at its first index, as in memory, and leaves nothing in SPOOL_DIR", () =>
      Effect.gen(function*() {
        const token = yield* mintToken({ scope: "products:write products:read", company: "ACME" })
        const firsts = Array.from({ length: 20 }, (_, i) => sampleProduct(i, { prefix: i % 2 === 0 ? narrow : wide }))
        // Each repeat's first occurrence is in one of the 6 runs spilled by then, or in the table.
        const repeats = Array.from({ length: 20 }, (_, j) => ({ ...firsts[(j * 3) % 20]!, skuCode: `SKU-REPEAT-${run}-${j}` }))
        const response = yield* postJsonFile(JSON.stringify({ products: [...firsts, ...repeats] }), token)
        expect(response.status).toBe(200)
        const body = response.json() as LoadBody
        expect(body).toMatchObject({ total: 40, processing: 20, failed: 20 })
        expect(body.errors).toEqual(repeats.map((product, j) => ({
          sku: product.skuCode,
          error: `productCode: ${product.productCode} already appears at products[${(j * 3) % 20}] of this load; the first occurrence wins`
        })))
        yield* eventually(loadView(body.processCode, token), (v) => v.status === "COMPLETED_WITH_ERRORS")
        expect(yield* productCounts(narrow)).toMatchObject({ products: "10" })
        expect(yield* productCounts(wide)).toMatchObject({ products: "10" })
        expect(readdirSync(spoolDir)).toEqual([])
        rmSync(spoolDir, { recursive: true, force: true })
      }))
  })
})
