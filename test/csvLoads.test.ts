import { describe, expect, layer } from "@effect/vitest"
import { ProductRepository } from "@retail/store"
import { csvFilesOf, type CsvFiles, sampleProduct, sampleProducts } from "@retail/testkit"
import { Effect, Option } from "effect"
import { readFileSync } from "node:fs"
import { eventually, request } from "./support/Http.ts"
import { type LoadBody, loadView, productCounts, publishedEntries } from "./support/Loads.ts"
import { fileOf, formData } from "./support/Multipart.ts"
import { mintToken, TestServer } from "./support/TestServer.ts"

// Run-unique prefixes and companies: a real database keeps the rows of earlier runs.
const run = crypto.randomUUID().slice(0, 8).toUpperCase()

type Part = keyof CsvFiles

const postCsv = (files: Partial<CsvFiles>, token: string, order: ReadonlyArray<Part> = ["productsCsv", "hierarchiesCsv", "barcodesCsv", "attributesCsv"]) =>
  request("/v1/handle-csv", {
    token,
    body: formData(order.flatMap((part) => {
      const text = files[part]
      return text === undefined ? [] : [[part, fileOf(text, "text/csv")] as const]
    }))
  })

const storedProduct = (company: string, productCode: string) =>
  Effect.flatMap(ProductRepository, (products) => products.findProduct(company, productCode)).pipe(Effect.orDie, Effect.map(Option.getOrUndefined))

const example = (name: string) => readFileSync(new URL(`../docs/examples/${name}`, import.meta.url), "utf8")

describe("POST /v1/handle-csv", () => {
  layer(TestServer(), { timeout: 180_000, excludeTestServices: true })((it) => {
    it.effect("four files of 400 products, sent children first, reach COMPLETED with every product and its children in the database", () =>
      Effect.gen(function*() {
        const prefix = `CSW${run}-`
        const token = yield* mintToken({ scope: "products:write products:read", company: "ACME" })
        const products = sampleProducts(400, { prefix })
        const response = yield* postCsv(csvFilesOf(products), token, ["attributesCsv", "barcodesCsv", "productsCsv", "hierarchiesCsv"])
        expect(response.status).toBe(200)
        const body = response.json() as LoadBody
        expect(body.message).toBe(`400 products are being processed; process code ${body.processCode}`)
        const done = yield* eventually(loadView(body.processCode, token), (v) => v.status === "COMPLETED")
        expect(done.totals).toEqual({ received: 400, accepted: 400, persisted: 400, failed: 0 })
        expect(done.source).toBe("HANDLE_CSV")
        expect(yield* productCounts(prefix)).toEqual({ products: "400", barcodes: "800", hierarchies: "800", attributes: "1200" })
        for (const product of [products[0]!, products[199]!, products[399]!]) {
          expect(yield* storedProduct("ACME", product.productCode)).toEqual(product)
        }
      }))

    it.effect("`;` delimiter, a byte order mark, CRLF and quoted fields holding line breaks and delimiters load as written", () =>
      Effect.gen(function*() {
        const prefix = `CSS${run}-`
        const token = yield* mintToken({ scope: "products:write products:read", company: "ACME" })
        const products = sampleProducts(5, { prefix }).map((p, i) => ({
          ...p,
          description: `Drill; model ${i}\r\nwith "two" batteries, case`,
          price: 1990.5
        }))
        const response = yield* postCsv(csvFilesOf(products, { delimiter: ";", lineEnd: "\r\n", bom: true }), token)
        expect(response.status).toBe(200)
        const body = response.json() as LoadBody
        yield* eventually(loadView(body.processCode, token), (v) => v.status === "COMPLETED")
        for (const product of products) expect(yield* storedProduct("ACME", product.productCode)).toEqual(product)
      }))

    it.effect("the sample files of docs/examples load as they are", () =>
      Effect.gen(function*() {
        const company = `DOCS${run}`
        const token = yield* mintToken({ scope: "products:write products:read", company })
        const response = yield* postCsv({
          productsCsv: example("products.csv"),
          hierarchiesCsv: example("hierarchies.csv"),
          barcodesCsv: example("barcodes.csv"),
          attributesCsv: example("attributes.csv")
        }, token)
        expect(response.status).toBe(200)
        const body = response.json() as LoadBody
        expect(body.message).toBe(`3 products are being processed; process code ${body.processCode}`)
        yield* eventually(loadView(body.processCode, token), (v) => v.status === "COMPLETED")
        expect(yield* productCounts("EX-", company)).toEqual({ products: "3", barcodes: "4", hierarchies: "5", attributes: "5" })
        const coffee = yield* storedProduct(company, "EX-COFFEE-500")
        expect(coffee).toMatchObject({ description: "Coffee beans, medium roast, 500 g", conversionFactor: 12, taxSelective: null })
        expect(coffee?.hierarchies[1]).toEqual({
          hierarchyCode: "H-FOOD-COFFEE",
          hierarchyLevel: 2,
          hierarchyParent: "H-FOOD",
          hierarchyName: "Coffee",
          hierarchyDescription: "Coffee beans and ground coffee,\nwhole or ground",
          hierarchyBreadcrumb: "Food > Coffee"
        })
      }))

    it.effect("bad rows (a cell of the wrong type, a ragged row), orphan child rows and a product without hierarchies fail with reasons naming file and line; the rest loads", () =>
      Effect.gen(function*() {
        const prefix = `CSE${run}-`
        const token = yield* mintToken({ scope: "products:write products:read", company: "ACME" })
        const products = sampleProducts(10, { prefix })
        const files = csvFilesOf(products)
        const code = (i: number) => products[i]!.productCode
        // products[2]: weight is text (products.csv line 4); products[3]: no hierarchy rows; products[4]: a ragged row,
        // its last cell missing (line 6); an orphan barcode row at the end.
        const productLines = files.productsCsv.split("\n")
        productLines[3] = productLines[3]!.replace(",1.8,", ",heavy,")
        productLines[5] = productLines[5]!.slice(0, productLines[5]!.lastIndexOf(","))
        const hierarchiesCsv = files.hierarchiesCsv.split("\n").filter((line) => !line.startsWith(`${code(3)},`)).join("\n")
        const orphan = `${prefix}ORPHAN`
        const barcodesCsv = `${files.barcodesCsv}${orphan},7750000000999,MAIN\n`
        const response = yield* postCsv({ ...files, productsCsv: productLines.join("\n"), hierarchiesCsv, barcodesCsv }, token)
        expect(response.status).toBe(200)
        const body = response.json() as LoadBody
        expect(body).toMatchObject({ total: 11, processing: 7, failed: 4 })
        const ragged = body.errors?.find((error) => error.sku === products[4]!.skuCode)
        expect(ragged?.error).toMatch(/^productsCsv line 6: the row has (\d+) fields, the header has (\d+)/)
        const expected = [
          { sku: products[2]!.skuCode, error: "productsCsv line 4: weight: \"heavy\" is not a number" },
          { sku: products[3]!.skuCode, error: "hierarchies: must contain at least one item (productsCsv line 5)" },
          { sku: orphan, error: `productCode: ${orphan} has child rows but no row in productsCsv (barcodesCsv line 22)` }
        ]
        expect(body.errors).toHaveLength(4)
        for (const error of expected) expect(body.errors).toContainEqual(error)
        const done = yield* eventually(loadView(body.processCode, token), (v) => v.status === "COMPLETED_WITH_ERRORS")
        expect(done.totals).toEqual({ received: 11, accepted: 7, persisted: 7, failed: 4 })
        const errors = yield* request(`/v1/loads/${body.processCode}/errors`, { token })
        const listed = (errors.json() as { errors: ReadonlyArray<unknown> }).errors
        for (const error of expected) expect(listed).toContainEqual(error)
        expect(yield* productCounts(prefix)).toMatchObject({ products: "7" })
      }))

    it.effect("each missing part is 400 naming it, and publishes nothing", () =>
      Effect.gen(function*() {
        const token = yield* mintToken({ scope: "products:write", company: "ACME" })
        const files = csvFilesOf(sampleProducts(3, { prefix: `CSM${run}-` }))
        const before = yield* publishedEntries
        for (const missing of ["productsCsv", "hierarchiesCsv", "barcodesCsv", "attributesCsv"] as const) {
          const response = yield* postCsv({ ...files, [missing]: undefined }, token)
          expect(response.status).toBe(400)
          expect(response.json()).toMatchObject({ message: `The multipart part ${missing} (a file) is required` })
        }
        expect(yield* publishedEntries).toBe(before)
      }))

    it.effect("a header without a required column is 400 naming the file and the column; an unclosed quote is 400; nothing is published", () =>
      Effect.gen(function*() {
        const prefix = `CSH${run}-`
        const token = yield* mintToken({ scope: "products:write", company: "ACME" })
        const files = csvFilesOf(sampleProducts(50, { prefix }))
        const before = yield* publishedEntries
        const noLevel = files.hierarchiesCsv.replace("hierarchyLevel", "level")
        const missingColumn = yield* postCsv({ ...files, hierarchiesCsv: noLevel }, token, ["productsCsv", "barcodesCsv", "attributesCsv", "hierarchiesCsv"])
        expect(missingColumn.status).toBe(400)
        expect(missingColumn.json()).toMatchObject({ message: "hierarchiesCsv header: missing required column \"hierarchyLevel\". Nothing was published." })
        const unclosed = yield* postCsv({ ...files, attributesCsv: `${files.attributesCsv}${prefix}X,SPEC,"VOLT,V,Voltage,\n` }, token)
        expect(unclosed.status).toBe(400)
        expect((unclosed.json() as { message: string }).message).toMatch(/^attributesCsv is not a readable CSV file: attributesCsv line 152: unclosed quote/)
        expect(yield* publishedEntries).toBe(before)
        expect(yield* productCounts(prefix)).toMatchObject({ products: "0" })
      }))

    it.effect("no token is 401; a token without products:write is 403", () =>
      Effect.gen(function*() {
        const files = csvFilesOf([sampleProduct(1, { prefix: `CSA${run}-` })])
        expect((yield* postCsv(files, "")).status).toBe(401)
        const token = yield* mintToken({ scope: "products:read", company: "ACME" })
        expect((yield* postCsv(files, token)).status).toBe(403)
      }))
  })
})

describe("POST /v1/handle-csv with a small FILE_MAX_BYTES", () => {
  layer(TestServer({ FILE_MAX_BYTES: "20000" }), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("a part over FILE_MAX_BYTES is 413 naming it, and publishes nothing", () =>
      Effect.gen(function*() {
        const prefix = `CSL${run}-`
        const token = yield* mintToken({ scope: "products:write", company: "ACME" })
        const files = csvFilesOf(sampleProducts(100, { prefix }))
        const small = csvFilesOf(sampleProducts(3, { prefix }))
        expect(files.productsCsv.length).toBeGreaterThan(20000)
        const before = yield* publishedEntries
        const response = yield* postCsv({ ...small, productsCsv: files.productsCsv }, token)
        expect(response.status).toBe(413)
        expect(response.json()).toMatchObject({ message: "The part productsCsv is larger than the limit of 20000 bytes" })
        expect(yield* publishedEntries).toBe(before)
        expect(yield* productCounts(prefix)).toMatchObject({ products: "0" })
      }))
  })
})
