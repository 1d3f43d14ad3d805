import { describe, expect, layer } from "@effect/vitest"
import { sampleProduct, sampleProducts } from "@retail/testkit"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { internalRequest, eventually, request } from "./support/Http.ts"
import { type LoadBody, loadView, publishedEntries } from "./support/Loads.ts"
import { fileOf, formData } from "./support/Multipart.ts"
import { mintToken, TestServer } from "./support/TestServer.ts"

// Run-unique company and prefix: a real database keeps earlier runs' rows.
const run = crypto.randomUUID().slice(0, 8).toUpperCase()
const company = `INT${run}`
const prefix = `HJI${run}-`

const productsOf = (companyCode: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ code: string }>`SELECT product_code AS code FROM products WHERE company = ${companyCode} ORDER BY product_code`.pipe(
      Effect.map((rows) => rows.map((row) => row.code)),
      Effect.orDie
    ))

const postInternal = (parts: ReadonlyArray<readonly [string, string | Blob]>) =>
  internalRequest("/v1/handle-json-int", { body: formData(parts) })

const jsonFile = (value: unknown) => fileOf(JSON.stringify(value), "application/json")

describe("POST /v1/handle-json-int on the internal listener", () => {
  layer(TestServer(), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("loads every product for the company named in the company part, without a token", () =>
      Effect.gen(function*() {
        const own = sampleProducts(40, { prefix })
        const sameCompany = sampleProduct(40, { prefix, company })
        const otherCompany = sampleProduct(41, { prefix, company: "SOMEONE-ELSE" })
        const response = yield* postInternal([["company", company], ["productsJson", jsonFile([...own, sameCompany, otherCompany])]])
        expect(response.status).toBe(200)
        const body = response.json() as LoadBody
        expect(body).toMatchObject({ total: 42, processing: 41, failed: 1 })
        expect(body.errors).toEqual([
          { sku: otherCompany.skuCode, error: `companyCode: is SOMEONE-ELSE but this load is for company ${company}` }
        ])
        const token = yield* mintToken({ scope: "products:read", company })
        const done = yield* eventually(loadView(body.processCode, token), (v) => v.status === "COMPLETED_WITH_ERRORS")
        expect(done).toMatchObject({ source: "HANDLE_JSON_INT", totals: { received: 42, accepted: 41, persisted: 41, failed: 1 } })
        expect(yield* productsOf(company)).toEqual([...own, sameCompany].map((p) => p.productCode))
      }))

    it.effect("the load belongs to that company: another company's token does not see it", () =>
      Effect.gen(function*() {
        const response = yield* postInternal([["company", company], ["productsJson", jsonFile(sampleProducts(1, { prefix, from: 100 }))]])
        expect(response.status).toBe(200)
        const processCode = (response.json() as LoadBody).processCode
        const outsider = yield* mintToken({ scope: "products:read", company: "ACME" })
        expect((yield* request(`/v1/loads/${processCode}`, { token: outsider })).status).toBe(404)
      }))

    it.effect("the company may come after the file: the same load, validated for that company", () =>
      Effect.gen(function*() {
        const own = sampleProducts(3, { prefix, from: 500 })
        const otherCompany = sampleProduct(503, { prefix, company: "SOMEONE-ELSE" })
        const response = yield* postInternal([["productsJson", jsonFile([...own, otherCompany])], ["company", company]])
        expect(response.status, response.text).toBe(200)
        const body = response.json() as LoadBody
        expect(body).toMatchObject({ total: 4, processing: 3, failed: 1 })
        expect(body.errors).toEqual([
          { sku: otherCompany.skuCode, error: `companyCode: is SOMEONE-ELSE but this load is for company ${company}` }
        ])
        const token = yield* mintToken({ scope: "products:read", company })
        const done = yield* eventually(loadView(body.processCode, token), (v) => v.status === "COMPLETED_WITH_ERRORS")
        expect(done).toMatchObject({ source: "HANDLE_JSON_INT", totals: { received: 4, accepted: 3, persisted: 3, failed: 1 } })
      }))

    it.effect("a missing or empty company (before or after the file), or a missing file is 400 naming the part, publishing nothing", () =>
      Effect.gen(function*() {
        const before = yield* publishedEntries
        const file = jsonFile(sampleProducts(2, { prefix, from: 200 }))
        const cases = [
          [[["productsJson", file]], "The multipart part company (a text field) is required"],
          [[["company", "   "], ["productsJson", file]], "company: must be 1 to 100 characters"],
          [[["productsJson", file], ["company", "   "]], "company: must be 1 to 100 characters"],
          [[["company", company]], "The multipart part productsJson (a file) is required"]
        ] as const
        for (const [parts, message] of cases) {
          const response = yield* postInternal(parts)
          expect({ status: response.status, body: response.json() }).toEqual({ status: 400, body: { message } })
        }
        expect(yield* publishedEntries).toBe(before)
      }))

    it.effect("a company part given twice is 400 naming it, publishing nothing", () =>
      Effect.gen(function*() {
        const before = yield* publishedEntries
        const file = jsonFile(sampleProducts(1, { prefix, from: 400 }))
        for (const second of [company, "SOMEONE-ELSE"]) {
          const response = yield* postInternal([["company", company], ["company", second], ["productsJson", file]])
          expect({ status: response.status, body: response.json() }).toEqual({
            status: 400,
            body: { message: "The part company is given more than once" }
          })
        }
        expect(yield* publishedEntries).toBe(before)
      }))

    it.effect("the public port does not serve it (404), and the internal listener serves nothing else", () =>
      Effect.gen(function*() {
        const before = yield* publishedEntries
        const parts = formData([["company", company], ["productsJson", jsonFile(sampleProducts(1, { prefix, from: 300 }))]])
        expect((yield* request("/v1/handle-json-int", { body: parts })).status).toBe(404)
        const token = yield* mintToken({ scope: "products:write", company })
        const publicLoad = yield* internalRequest("/v1/handle-json", { token, body: formData([["productsJson", jsonFile([])]]) })
        expect(publicLoad.status).toBe(404)
        expect(yield* publishedEntries).toBe(before)
      }))
  })
})
