import { describe, expect, it } from "@effect/vitest"
import { csvFilesOf, type CsvFiles, sampleProduct, sampleProducts } from "@retail/testkit"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { eventually, request } from "./support/Http.ts"
import { type LoadBody, loadView, productCounts, publishedEntries } from "./support/Loads.ts"
import { fileOf, formData } from "./support/Multipart.ts"
import { mintToken, TestServer } from "./support/TestServer.ts"

// Run-unique product codes: a real database keeps the rows of earlier runs. Both servers get the same
// codes (so the same partitions), each for its own company.
const run = crypto.randomUUID().slice(0, 8).toUpperCase()
const prefix = `CJT${run}-`
const PRODUCTS = 240
/** An unknown column (ignored by the join) that makes the upload about 6 MB: three partitions or more, at one per 2 MiB. */
const PADDING = "x".repeat(24_000)

const troubledFiles = (): CsvFiles => {
  const products = sampleProducts(PRODUCTS, { prefix }).map((p, i) => (i % 37 === 3 ? { ...p, companyCode: "SOMEONE-ELSE" } : p))
  const files = csvFilesOf(products)
  const lines = files.productsCsv.split("\n")
  const productsCsv = lines.map((line, i) => {
    if (line === "") return line
    if (i === 0) return `${line},padding`
    const padded = `${line},${PADDING}`
    return i % 41 === 7 ? padded.replace(",1.8,", ",heavy,") : padded
  }).join("\n")
  const orphan = csvFilesOf([sampleProduct(9999, { prefix })])
  const rowsOf = (text: string) => text.split("\n").slice(1).join("\n")
  return { ...files, productsCsv, barcodesCsv: files.barcodesCsv + rowsOf(orphan.barcodesCsv) }
}

/** Loads the files for `company` on a server with CSV_JOIN_THREADS=`threads`; its answer, end state and full error list. */
const loadWithThreads = (threads: string, company: string, files: CsvFiles) =>
  Effect.gen(function*() {
    const token = yield* mintToken({ scope: "products:write products:read", company })
    const response = yield* request("/v1/handle-csv", {
      token,
      body: formData((["productsCsv", "hierarchiesCsv", "barcodesCsv", "attributesCsv"] as const).map((part) => [part, fileOf(files[part], "text/csv")]))
    })
    expect(response.status).toBe(200)
    const body = response.json() as LoadBody
    const done = yield* eventually(loadView(body.processCode, token), (v) => v.status === "COMPLETED_WITH_ERRORS")
    const listed = (yield* request(`/v1/loads/${body.processCode}/errors`, { token })).json() as { errors: ReadonlyArray<unknown> }
    // The company is named in companyCode failures: made alike so that the two loads can be compared.
    const alike = <A>(value: A): A => JSON.parse(JSON.stringify(value).replaceAll(company, "COMPANY")) as A
    const { processCode: _, ...summary } = body
    return { summary: alike(summary), totals: done.totals, errors: alike(listed.errors), stored: yield* productCounts(prefix, company) }
  }).pipe(Effect.provide(TestServer({ CSV_JOIN_THREADS: threads })))

describe("POST /v1/handle-csv joined in worker threads", () => {
  it.live("an upload over several partitions, with failures in several of them, loads as the in-process join loads it: same answer, same errors in the same order", () =>
    Effect.gen(function*() {
      const files = troubledFiles()
      expect(Object.values(files).reduce((n, text) => n + text.length, 0)).toBeGreaterThan(2 * 2 * 1024 * 1024)
      const threaded = yield* loadWithThreads("2", `CJT2${run}`, files)
      const inProcess = yield* loadWithThreads("0", `CJT0${run}`, files)

      const failed = 7 + 6 + 1 // companyCode of 7 products, "heavy" weight of 6, one orphan productCode
      expect(threaded.totals).toEqual({ received: PRODUCTS + 1, accepted: PRODUCTS - 13, persisted: PRODUCTS - 13, failed })
      expect(threaded.stored).toEqual({
        products: String(PRODUCTS - 13),
        barcodes: String(2 * (PRODUCTS - 13)),
        hierarchies: String(2 * (PRODUCTS - 13)),
        attributes: String(3 * (PRODUCTS - 13))
      })
      expect(threaded.errors).toHaveLength(failed)
      expect(threaded.errors).toContainEqual({
        sku: `${prefix}00009999`,
        error: `productCode: ${prefix}00009999 has child rows but no row in productsCsv (barcodesCsv lines ${2 * PRODUCTS + 2}, ${2 * PRODUCTS + 3})`
      })
      expect(threaded.errors).toContainEqual({ sku: `SKU-${prefix}00000006`, error: "productsCsv line 8: weight: \"heavy\" is not a number" })
      expect(threaded.summary).toEqual(inProcess.summary)
      expect(threaded.errors).toEqual(inProcess.errors)
      expect(threaded.totals).toEqual(inProcess.totals)
      expect(threaded.stored).toEqual(inProcess.stored)
    }), 240_000)
})

const loadCount = (company: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: string }>`SELECT count(*) AS n FROM loads WHERE company = ${company}`).pipe(
    Effect.map((rows) => Number(rows[0]?.n)),
    Effect.orDie
  )

describe("POST /v1/handle-csv when a join thread dies", () => {
  it.live("a thread out of memory fails the load with 500, records and publishes nothing, and does not hang", () =>
    Effect.gen(function*() {
      const company = `CJX${run}`
      const token = yield* mintToken({ scope: "products:write products:read", company })
      const files = csvFilesOf(sampleProducts(3000, { prefix: `CJX${run}-` }))
      const before = yield* publishedEntries
      const response = yield* request("/v1/handle-csv", {
        token,
        body: formData((["productsCsv", "hierarchiesCsv", "barcodesCsv", "attributesCsv"] as const).map((part) => [part, fileOf(files[part], "text/csv")]))
      })
      expect(response.status).toBe(500)
      expect(response.json()).toEqual({
        message: expect.stringMatching(/^The CSV files could not be joined \(.+\); nothing was published\. Retry later\.$/)
      })
      expect(yield* publishedEntries).toBe(before)
      expect(yield* loadCount(company)).toBe(0)
    }).pipe(Effect.provide(TestServer({ CSV_JOIN_THREAD_HEAP_MB: "4" }))), 240_000)
})
