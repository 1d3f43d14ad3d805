import { describe, expect, it } from "@effect/vitest"
import { Product } from "@retail/domain"
import { sampleProduct } from "@retail/testkit"
import { Result, Schema } from "effect"
import { columnValues, decodeEncodedBatch, encodeBatch, encodeRows, entryOfColumns, isEncodedBatch, layoutRows, sentSkus } from "../src/index.ts"

const product = (index: number, overrides: Partial<Record<string, unknown>> = {}): Product =>
  Schema.decodeUnknownSync(Product)({ ...sampleProduct(index, { prefix: "ENC" }), ...overrides })

const header = { processCode: "11111111-1111-4111-8111-111111111111", company: "ACME", batchNo: 3 }

const readInt32 = (bytes: Uint8Array, at: number) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).readInt32BE(at)
/** Element count of a one-dimensional binary array (0 for an empty one). */
const countOf = (column: Uint8Array) => (readInt32(column, 0) === 0 ? 0 : readInt32(column, 12))

describe("EncodedBatch", () => {
  it("keeps one product per code (the latest dateUpdate), sorted by code, and counts every product sent", () => {
    const older = product(2, { dateUpdate: "2020-01-01 00:00:00" })
    const entry = encodeBatch(header, [product(5), older, product(2), product(1)])
    expect(isEncodedBatch(entry)).toBe(true)
    const decoded = Result.getOrThrow(decodeEncodedBatch(entry))
    expect(decoded.header).toEqual({ ...header, products: 4 })
    expect(decoded.columns).toHaveLength(44)
    expect(countOf(decoded.columns[0]!)).toBe(3)
    expect(sentSkus(decoded)).toEqual([product(5), older, product(2), product(1)].map((p) => p.skuCode))
    const codes = Buffer.from(decoded.columns[0]!).toString("latin1")
    const [first, second, third] = [product(1), product(2), product(5)].map((p) => codes.indexOf(p.productCode))
    expect(first! < second! && second! < third!).toBe(true)
  })

  it("an empty batch is 44 empty columns", () => {
    const decoded = Result.getOrThrow(decodeEncodedBatch(encodeBatch(header, [])))
    expect(decoded.columns.map(countOf)).toEqual(Array(44).fill(0))
    expect(sentSkus(decoded)).toEqual([])
  })

  it("rows encoded a block at a time and laid out by runs are the batch encodeBatch gives for the same products", () => {
    // Hierarchies without a parent: NULL elements, whose flag the layout must carry.
    const products = [1, 2, 3, 4, 5, 6].map((i) => product(i, { hierarchies: [{ hierarchyCode: `H${i}`, hierarchyLevel: 1 }] }))
    const first = encodeRows(products.slice(0, 4))
    const second = encodeRows(products.slice(4))
    const whole = entryOfColumns({ ...header, products: 6 }, layoutRows([{ rows: first, from: 0, to: 4 }, { rows: second, from: 0, to: 2 }]))
    expect(Buffer.from(whole)).toEqual(Buffer.from(encodeBatch(header, products)))

    const columnsOf = (entry: Uint8Array) => Result.getOrThrow(columnValues(Result.getOrThrow(decodeEncodedBatch(entry))))
    const some = entryOfColumns({ ...header, products: 3 }, layoutRows([{ rows: first, from: 1, to: 3 }, { rows: second, from: 1, to: 2 }]))
    expect(columnsOf(some)).toEqual(columnsOf(encodeBatch(header, [products[1]!, products[2]!, products[5]!])))
  })

  it("refuses what is not a whole encoded batch, saying why", () => {
    const entry = encodeBatch(header, [product(1)])
    const failure = (bytes: Uint8Array) => Result.match(decodeEncodedBatch(bytes), { onFailure: (m) => m, onSuccess: () => "(decoded)" })
    expect(failure(Buffer.from("{\"processCode\":1}"))).toBe("not an encoded batch")
    expect(failure(entry.subarray(0, entry.length - 3))).toMatch(/^truncated column/)
    expect(failure(Buffer.concat([entry, Buffer.of(0)]))).toBe("trailing bytes after the columns")
    const retyped = Buffer.from(entry)
    // The first column's element type (text, 25) turned into int4 (23).
    const headerLength = retyped.readInt32BE(4)
    retyped.writeInt32BE(23, 4 + 4 + headerLength + 4 + 4 + 8)
    expect(failure(retyped)).toBe("column 0 has element type 23, expected 25")
  })
})
