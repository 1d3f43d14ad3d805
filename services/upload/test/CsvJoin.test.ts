import { describe, expect, it } from "@effect/vitest"
import { validateProduct } from "@retail/domain"
import { type CsvFileHeaders, type CsvFileName, CsvLayouts, decodePartitionRow, encodeLineRow, encodePartitionRow, fieldOfPartitionRow, lineOfPartitionRowBytes, type FileProduct } from "@retail/ingest"
import { csvFilesOf, type CsvFiles, sampleProduct, sampleProducts } from "@retail/testkit"
import { Effect, Fiber, Result, Stream } from "effect"
import { tmpdir } from "node:os"
import { makeCsvPartitions, partitionCountFor, partitionOf, partitionOfBytes } from "../src/csv/CsvPartitions.ts"
import { partitionCsvFile } from "../src/csv/CsvPartSplitter.ts"
import { joinedItems } from "../src/csv/JoinedItems.ts"

const encoder = new TextEncoder()

/** The text as a byte stream cut into pieces of `size` bytes, so rows and characters straddle chunks. */
const bytesOf = (text: string, size: number) => {
  const bytes = encoder.encode(text)
  const pieces: Array<Uint8Array> = []
  for (let i = 0; i < bytes.length; i += size) pieces.push(bytes.subarray(i, i + size))
  return Stream.fromIterable(pieces)
}

/** Partitions the files (in the given order) into `count` partitions and joins them, as the endpoint does. */
const join = (files: Partial<CsvFiles>, count: number, order: ReadonlyArray<CsvFileName> = ["attributesCsv", "barcodesCsv", "productsCsv", "hierarchiesCsv"]) =>
  Effect.scoped(Effect.gen(function*() {
    const partitions = yield* makeCsvPartitions(tmpdir(), count)
    const headers: Partial<Record<CsvFileName, CsvFileHeaders[CsvFileName]>> = {}
    for (const file of order) {
      headers[file] = yield* partitionCsvFile(bytesOf(files[file] ?? "", 997), CsvLayouts[file], partitions)
    }
    yield* partitions.flush
    const { attributesCsv, barcodesCsv, hierarchiesCsv, productsCsv } = headers
    if (attributesCsv === undefined || barcodesCsv === undefined || hierarchiesCsv === undefined || productsCsv === undefined) {
      return yield* Effect.die(new Error("a file was not read"))
    }
    const perPartition: Array<number> = []
    for (let p = 0; p < count; p++) {
      perPartition.push((yield* partitions.read(p)).toString("utf8").split("\n").filter((line) => line.startsWith("P")).length)
    }
    const items = yield* Stream.runCollect(joinedItems(partitions, { attributesCsv, barcodesCsv, hierarchiesCsv, productsCsv }))
    return { items, perPartition }
  }))

const productsOf = (items: ReadonlyArray<FileProduct>) =>
  items.flatMap((item) => item._tag === "Product" ? [item.value] : [])
const failuresOf = (items: ReadonlyArray<FileProduct>) =>
  items.flatMap((item) => item._tag === "Failed" ? [{ sku: item.sku, error: item.error }] : [])

describe("CSV join", () => {
  it.effect("joins 3000 products with all their children across 7 partitions, each holding some of them", () =>
    Effect.gen(function*() {
      const products = sampleProducts(3000, { prefix: "J" })
      const { items, perPartition } = yield* join(csvFilesOf(products), 7)
      expect(perPartition).toHaveLength(7)
      expect(perPartition.every((n) => n > 100)).toBe(true)
      expect(perPartition.reduce((a, b) => a + b, 0)).toBe(3000)
      expect(failuresOf(items)).toEqual([])
      const joined = productsOf(items).map((value) => Result.getOrThrow(validateProduct(value)))
      expect(joined).toHaveLength(3000)
      const byCode = new Map(joined.map((p) => [p.productCode, p]))
      for (const product of products) expect(byCode.get(product.productCode)).toEqual(product)
    }))

  it.effect("joins files whose records turn to quoted line breaks midway (the split reads the rest of such a file field by field)", () =>
    Effect.gen(function*() {
      const products = sampleProducts(300, { prefix: "Q" }).map((product, i) =>
        i === 120 ? { ...product, description: "two\nlines, \"quoted\"" } : i % 7 === 0 ? { ...product, description: `a, "b"; c ${i}` } : product
      )
      const { items } = yield* join(csvFilesOf(products), 5)
      expect(failuresOf(items)).toEqual([])
      const joined = new Map(productsOf(items).map((value) => Result.getOrThrow(validateProduct(value))).map((p) => [p.productCode, p]))
      expect(joined.size).toBe(300)
      for (const product of products) expect(joined.get(product.productCode)).toEqual(product)
    }))

  it.effect("gives the same products whatever the partition count and the order of the files", () =>
    Effect.gen(function*() {
      const files = csvFilesOf(sampleProducts(500, { prefix: "K" }), { delimiter: ";", lineEnd: "\r\n", bom: true })
      const sorted = (items: ReadonlyArray<FileProduct>) => productsOf(items).map((v) => JSON.stringify(v)).sort()
      const one = yield* join(files, 1, ["productsCsv", "hierarchiesCsv", "barcodesCsv", "attributesCsv"])
      const many = yield* join(files, 13)
      expect(one.items).toHaveLength(500)
      expect(sorted(many.items)).toEqual(sorted(one.items))
    }))

  it.effect("reports orphan child rows, rows without productCode, bad cells and duplicates, each naming file and line", () =>
    Effect.gen(function*() {
      const products = sampleProducts(40, { prefix: "E" })
      const files = csvFilesOf(products)
      const orphan = sampleProduct(900, { prefix: "E" })
      const orphanRows = csvFilesOf([orphan])
      const rowsOf = (text: string) => text.split("\n").slice(1).join("\n")
      const productLines = files.productsCsv.split("\n")
      // Line 2 is product E00000000: its price becomes text; line 4 (E00000002) appears again at the end.
      productLines[1] = productLines[1]!.replace(/,199\.9,/, ",12abc,")
      const productsCsv = [...productLines.slice(0, -1), productLines[3]!, ""].join("\n")
      const hierarchiesCsv = files.hierarchiesCsv.replace("E00000005,H-TOOLS,1,", "E00000005,H-TOOLS,one,")
      const barcodesCsv = files.barcodesCsv + rowsOf(orphanRows.barcodesCsv) + ",7750000000000,MAIN\n"
      const attributesCsv = files.attributesCsv + rowsOf(orphanRows.attributesCsv)
      const { items } = yield* join({ productsCsv, hierarchiesCsv, barcodesCsv, attributesCsv }, 3)

      const failures = failuresOf(items)
      expect(productsOf(items)).toHaveLength(38)
      expect(failures).toHaveLength(5)
      expect(failures).toContainEqual({ sku: "SKU-E00000000", error: "productsCsv line 2: price: \"12abc\" is not a number" })
      const hierarchyLine = hierarchiesCsv.split("\n").findIndex((l) => l.startsWith("E00000005,H-TOOLS,one")) + 1
      expect(failures).toContainEqual({ sku: "SKU-E00000005", error: `hierarchiesCsv line ${hierarchyLine}: hierarchyLevel: "one" is not an integer` })
      expect(failures).toContainEqual({
        sku: "SKU-E00000002",
        error: "productCode: E00000002 already appears at productsCsv line 4; the first occurrence wins (productsCsv line 42)"
      })
      const barcodeLines = barcodesCsv.split("\n")
      expect(failures).toContainEqual({
        sku: "E00000900",
        error: `productCode: E00000900 has child rows but no row in productsCsv (barcodesCsv lines ${barcodeLines.length - 3}, ${barcodeLines.length - 2}; ` +
          `attributesCsv lines 122, 123, 124)`
      })
      expect(failures).toContainEqual({
        sku: "",
        error: `barcodesCsv line ${barcodeLines.length - 1}: productCode: is required to join the row to its product`
      })
    }))

  it.effect("a product without hierarchy rows is joined with an empty list, which validation refuses", () =>
    Effect.gen(function*() {
      const files = csvFilesOf([sampleProduct(1, { prefix: "N" })])
      const hierarchiesCsv = files.hierarchiesCsv.split("\n")[0] + "\n"
      const { items } = yield* join({ ...files, hierarchiesCsv }, 2)
      const [item] = items
      expect(item?._tag).toBe("Product")
      if (item?._tag !== "Product") return
      const failure = Result.flip(validateProduct(item.value)).pipe(Result.getOrThrow)
      expect(item.locate?.(failure.error)).toBe("hierarchies: must contain at least one item (productsCsv line 2)")
    }))
})

describe("CSV partitions", () => {
  it("a row survives its partition encoding, separators, line breaks and faults included", () => {
    const rows = [
      { line: 7, fields: ["P1", "a", "", "b c"] },
      { line: 8, fields: ["P\x1f2", "x\ny", "\x1e"] },
      { line: 9, fields: ["P3", "z"], fault: "unexpected \"x\" after the closing quote of field 2" },
      { line: 10, fields: [""] }
    ]
    for (const row of rows) {
      for (const careful of [false, true]) {
        const encoded = encodePartitionRow("barcodesCsv", row, careful || row.fields.some((f) => /[\x1e\x1f]/.test(f)))
        expect(encoded.endsWith("\n")).toBe(true)
        expect(encoded.slice(0, -1).includes("\n")).toBe(false)
        expect(decodePartitionRow(encoded.slice(0, -1), ",")).toEqual({ file: "barcodesCsv", row })
        expect(fieldOfPartitionRow(encoded.slice(0, -1), 1, ",")).toBe(row.fields[1] ?? "")
      }
    }
  })

  it("a record without quotes is kept as its text and split with its file's delimiter, separators and all", () => {
    for (const [delimiter, text] of [[",", "P1,a;b,,c\x1fd\x1ee"], [";", "P1;a,b;;c\x1fd\x1ee"]] as const) {
      const encoded = encodeLineRow("attributesCsv", 12, text)
      expect(encoded).toBe(`A12\x1d${text}\n`)
      const fields = text.split(delimiter)
      expect(decodePartitionRow(encoded.slice(0, -1), delimiter)).toEqual({ file: "attributesCsv", row: { line: 12, fields } })
      expect(lineOfPartitionRowBytes(Buffer.from(encoded), 0, encoded.length - 1)).toBe(12)
      for (const index of [0, 1, 2, 3, 4]) expect(fieldOfPartitionRow(encoded.slice(0, -1), index, delimiter)).toBe(fields[index] ?? "")
    }
  })

  it("a one-line record with quotes is kept as its text too and split as CsvReader splits it; its productCode found before or after quotes", () => {
    const cases = [
      { text: "P1,\"a,\"\"b\"\"\",c", fields: ["P1", "a,\"b\"", "c"] },
      { text: "\"P,2\",x,\"\"", fields: ["P,2", "x", ""] },
      { text: "\"a,b\",P3,y", fields: ["a,b", "P3", "y"] },
      { text: "P4,12\" x,z", fields: ["P4", "12\" x", "z"] }
    ]
    for (const { fields, text } of cases) {
      const encoded = encodeLineRow("hierarchiesCsv", 3, text).slice(0, -1)
      expect(decodePartitionRow(encoded, ",")).toEqual({ file: "hierarchiesCsv", row: { line: 3, fields } })
      for (const index of [0, 1, 2, 3]) expect(fieldOfPartitionRow(encoded, index, ",")).toBe(fields[index] ?? "")
    }
  })

  it("hashes a productCode's UTF-8 bytes to the partition of its text", () => {
    for (const code of ["P000123", "", "Pé€𝄞", "\"x"]) {
      const bytes = encoder.encode(`,${code},`)
      for (const count of [1, 7, 1024]) expect(partitionOfBytes(bytes, 1, bytes.length - 1, count)).toBe(partitionOf(code, count))
    }
  })

  it.effect("rows added while a flush is writing are kept, after the rows being written", () =>
    Effect.scoped(Effect.gen(function*() {
      const partitions = yield* makeCsvPartitions(tmpdir(), 2)
      const rows = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `B${from + i}\x1dP1,${"é".repeat((from + i) % 7)}\n`)
      for (const row of rows(0, 500)) partitions.add(1, row)
      const writing = yield* Effect.forkChild(partitions.flush)
      yield* Effect.yieldNow
      for (const row of rows(500, 900)) partitions.add(1, row)
      yield* Fiber.join(writing)
      for (const row of rows(900, 1000)) partitions.add(1, row)
      yield* partitions.flush
      expect((yield* partitions.read(1)).toString("utf8")).toBe(rows(0, 1000).join(""))
      expect((yield* partitions.read(0)).toString("utf8")).toBe("")
    })))

  it("sizes the partition count from the declared body and spreads codes over all partitions", () => {
    expect(partitionCountFor(undefined)).toBe(1024)
    expect(partitionCountFor(1000)).toBe(1)
    expect(partitionCountFor(40 * 1024 * 1024)).toBe(20)
    expect(partitionCountFor(64 * 1024 * 1024 * 1024)).toBe(1024)
    const seen = new Set(Array.from({ length: 2000 }, (_, i) => partitionOf(`P${i}`, 16)))
    expect(seen.size).toBe(16)
  })
})
