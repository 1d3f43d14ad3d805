import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { HttpServer } from "effect/http"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import { eventually, postJson } from "../support/Http.ts"
import { type LoadBody, loadView } from "../support/Loads.ts"
import { mintToken, TestServer } from "../support/TestServer.ts"
import { asStored, STORED_DOCUMENT } from "../support/StoredProducts.ts"

const run = crypto.randomUUID().slice(0, 8).toUpperCase()
const COMPANY = `PBT${run}`
let serial = 0

/** Hostile but legal text: unicode, emoji, controls other than NUL, SQL and spreadsheet formula payloads. */
const hostile = fc.constantFrom(
  "'; DROP TABLE products; --",
  "\" OR 1=1 --",
  "=HYPERLINK(\"http://evil.test\",\"click\")",
  "+cmd|' /C calc'!A0",
  "-2+3",
  "@SUM(A1:A2)",
  "Robert'); DELETE FROM loads;--",
  "\\x00 is not a NUL",
  "ñandú 北京 🚚‍💨 עברית",
  "tab\there\nnew line\u0001\u001f\u007f",
  "<script>alert(1)</script>"
)
/** The longest prefix of whole code points within `max` UTF-16 units (the unit of the length rules). */
const fit = (value: string, max: number) => {
  let out = ""
  for (const ch of value) {
    if (out.length + ch.length > max) break
    out += ch
  }
  return out
}
const text = (maxLength: number) =>
  fc.oneof(
    fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }).map((s) => fit(s.replaceAll("\u0000", ""), maxLength)).filter((s) => s !== ""),
    hostile.filter((s) => s.length <= maxLength)
  )
const code = text(100)
const amount = fc.oneof(fc.double({ min: 0, max: 1e15, noNaN: true, noDefaultInfinity: true }), fc.integer({ min: 0, max: 100000 }))
const dateTime = fc.record({
  y: fc.integer({ min: 1, max: 9999 }),
  mo: fc.integer({ min: 1, max: 12 }),
  d: fc.integer({ min: 1, max: 28 }),
  h: fc.integer({ min: 0, max: 23 }),
  mi: fc.integer({ min: 0, max: 59 }),
  s: fc.integer({ min: 0, max: 59 })
}).map(({ y, mo, d, h, mi, s }) => {
  const p = (n: number, w = 2) => String(n).padStart(w, "0")
  return `${p(y, 4)}-${p(mo)}-${p(d)} ${p(h)}:${p(mi)}:${p(s)}`
})

/** A product every rule accepts; its productCode is unique in the run. */
const validProduct = fc.record({
  tail: code,
  skuCode: code,
  eanCode: code,
  description: fc.oneof(text(4000), fc.string({ minLength: 3000, maxLength: 4000 })),
  price: amount, length: amount, width: amount, height: amount, weight: amount,
  productType: code,
  dispatchType: fc.option(fc.constantFrom("NORMAL", "EXPRESS", "INTERNATIONAL"), { nil: null }),
  unitMeasurement: fc.constantFrom("UN", "KG", "LT", "ML"),
  unitedNationsCode: code,
  hierarchyCode: code,
  taxSale: fc.constantFrom("T", "F"),
  taxSelective: fc.option(amount, { nil: null }),
  salesTax: fc.option(amount, { nil: null }),
  productPmmStatus: code,
  dateUpdate: dateTime,
  isEcommerce: fc.constantFrom("T", "F"),
  measurable: fc.constantFrom("T", "F"),
  skuCodePlatform: fc.option(code, { nil: null }),
  conversionFactor: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  barcodes: fc.array(fc.record({ eanCode: code, indicator: text(1000) }), { maxLength: 3 }),
  hierarchies: fc.array(
    fc.record({ hierarchyCode: code, hierarchyLevel: fc.integer({ min: -2147483648, max: 2147483647 }), hierarchyName: text(1000) }),
    { minLength: 1, maxLength: 3 }
  ),
  lstAttributes: fc.array(
    fc.record({ attributeType: text(1000), parentAttributeCode: code, attributeCode: code, attributeDescription: text(1000) }),
    { maxLength: 3 }
  )
}).map(({ tail, ...fields }) => {
  const productCode = fit(`${run}-${serial++}-${tail}`, 100)
  return {
    ...fields,
    productCode,
    companyCode: null,
    barcodes: fields.barcodes.map((b) => ({ productCode, ...b })),
    lstAttributes: fields.lstAttributes.map((a) => ({ productCode, ...a }))
  }
})
type ValidProduct = ReturnType<typeof validProduct.generate>["value"]

const textFields = ["productCode", "skuCode", "eanCode", "description", "productType", "unitedNationsCode", "hierarchyCode", "productPmmStatus"] as const

/** Ways to break one product; each must make it fail with a reason under its SKU. */
const breakage = fc.oneof(
  fc.constantFrom(...textFields, "price", "unitMeasurement", "taxSale", "dateUpdate", "conversionFactor", "hierarchies").map((field) =>
    ({ what: `${field} missing`, apply: (p: Record<string, unknown>) => { delete p[field] } })),
  fc.tuple(fc.constantFrom("price", "weight", "conversionFactor", "productCode", "taxSale", "barcodes"), fc.constantFrom(null, true, "12", [], {}, -1))
    .filter(([field, value]) => !(field === "barcodes" && Array.isArray(value)) && !(field === "productCode" && value === "12"))
    .map(([field, value]) => ({ what: `${field} = ${JSON.stringify(value)}`, apply: (p: Record<string, unknown>) => { p[field] = value } })),
  fc.tuple(fc.constantFrom("dispatchType", "unitMeasurement", "taxSale", "isEcommerce", "measurable"), fc.constantFrom("normal", "X", "", "TRUE"))
    .map(([field, value]) => ({ what: `${field} = ${value}`, apply: (p: Record<string, unknown>) => { p[field] = value } })),
  fc.constantFrom("2026-02-30 10:00:00", "2026-13-01 00:00:00", "2026-01-01 24:00:00", "2026-01-01", "2026-01-01T10:00:00Z", "0000-01-01 00:00:00", "")
    .map((date) => ({ what: `dateUpdate = ${date}`, apply: (p: Record<string, unknown>) => { p["dateUpdate"] = date } })),
  fc.constantFrom(...textFields).map((field) =>
    ({ what: `${field} huge`, apply: (p: Record<string, unknown>) => { p[field] = "x".repeat(field === "description" ? 4001 : 101) } })),
  fc.tuple(fc.constantFrom(...textFields), fc.constantFrom("a\u0000b", "\ud800", "x\udfffy")).map(([field, bad]) =>
    ({ what: `${field} with ${JSON.stringify(bad)}`, apply: (p: Record<string, unknown>) => { p[field] = `${String(p[field]).slice(0, 50)}${bad}` } }))
)

/** A SKU as failures report it: what PostgreSQL cannot hold (NUL, half a surrogate pair) as U+FFFD. */
const asReported = (sku: string) =>
  sku.replaceAll("\u0000", "\uFFFD").replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD")

const loadCase = fc.array(
  fc.tuple(validProduct, fc.option(breakage, { freq: 3 })),
  { minLength: 5, maxLength: 30 }
)

describe("POST /v1/load-products with generated products", () => {
  layer(TestServer({ TOKEN_RATE_LIMIT_PER_SECOND: "0" }), { timeout: 300_000, excludeTestServices: true })((it) => {
    it.effect("never a 5xx; each broken product fails under its SKU with a reason; each valid one is stored exactly as sent", () =>
      Effect.gen(function*() {
        const token = yield* mintToken({ scope: "products:write products:read", company: COMPANY })
        const sql = yield* SqlClient.SqlClient
        const context = yield* Effect.context<HttpServer.HttpServer>()
        const check = (cases: ReadonlyArray<readonly [ValidProduct, { what: string; apply: (p: Record<string, unknown>) => void } | null]>) =>
          Effect.gen(function*() {
            const products = cases.map(([product, broken]) => {
              const sent: Record<string, unknown> = structuredClone(product)
              broken?.apply(sent)
              return { sent, broken: broken?.what ?? null, sku: typeof sent["skuCode"] === "string" ? asReported(sent["skuCode"]) : "" }
            })
            const response = yield* postJson("/v1/load-products", { products: products.map((p) => p.sent) }, token)
            expect(response.status).toBe(200)
            const body = response.json() as LoadBody
            const errors = body.errors ?? []
            const broken = products.filter((p) => p.broken !== null)
            expect(errors.map((e) => e.sku)).toEqual(broken.map((p) => p.sku))
            for (const error of errors) expect(error.error).toMatch(/^[A-Za-z.[\]0-9]+: \S/)

            const done = yield* eventually(loadView(body.processCode, token), (v) => v.status !== "PROCESSING" && v.status !== "RECEIVED", 30_000)
            const valid = products.filter((p) => p.broken === null)
            expect({ status: done.status, totals: done.totals }).toEqual({
              status: broken.length === 0 ? "COMPLETED" : "COMPLETED_WITH_ERRORS",
              totals: { received: products.length, accepted: valid.length, persisted: valid.length, failed: broken.length }
            })
            if (valid.length === 0) return
            const stored = yield* sql<{ product_code: string; document: unknown }>`
              SELECT p.product_code, ${sql.literal(STORED_DOCUMENT)} AS document FROM products p
              WHERE p.company = ${COMPANY} AND ${sql.in("p.product_code", valid.map((p) => String(p.sent["productCode"])))}`
            const byCode = new Map(stored.map((row) => [row.product_code, typeof row.document === "string" ? JSON.parse(row.document) as unknown : row.document]))
            // As the server received it (JSON has no -0), nullable fields left out stored as null.
            for (const product of valid) expect(byCode.get(String(product.sent["productCode"]))).toEqual(asStored(product.sent))
          }).pipe(Effect.orDie)

        yield* Effect.promise(() =>
          fc.assert(fc.asyncProperty(loadCase, (cases) => Effect.runPromiseWith(context)(check(cases))), {
            numRuns: 25,
            endOnFailure: true
          })
        )
      }))
  })
})
