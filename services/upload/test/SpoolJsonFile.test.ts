import { describe, expect, it, layer } from "@effect/vitest"
import { sampleProduct } from "@retail/testkit"
import { Product } from "@retail/domain"
import { columnValues, decodeEncodedBatch, encodeBatch, entryOfColumns } from "@retail/store"
import { Data, Effect, Result, Schema, Stream } from "effect"
import fc from "fast-check"
import { tmpdir } from "node:os"
import type { JsonBlock } from "@retail/ingest"
import { runValidation } from "../src/json/JsonValidationTask.ts"
import { JsonValidationPool } from "../src/json/JsonValidationPool.ts"
import { makeLoadSpool } from "../src/spool/LoadSpool.ts"
import { spoolJsonFile } from "../src/json/SpoolJsonFile.ts"

const encoder = new TextEncoder()
const decoder = new TextDecoder()
/** PRODUCT_MAX_VALUES in these tests: room for a sample product (~130 values), not for a "manyValues" one. */
const PRODUCT_MAX_VALUES = 200

class UploadCut extends Data.TaggedError("UploadCut")<{ readonly message: string }> {}

/** Everything a file load's outcome is made of: the failure's tag and message, or the totals and every spooled record. */
const outcome = (
  chunks: ReadonlyArray<Uint8Array>,
  options: { readonly cut: boolean; readonly blockBytes: number; readonly codesInMemory?: number | undefined; readonly format?: "json" | "columns" }
) =>
  Effect.scoped(Effect.gen(function*() {
    const spool = yield* makeLoadSpool(tmpdir())
    const bytes = Stream.fromIterable(chunks)
    const content = options.cut ? Stream.concat(bytes, Stream.fail(new UploadCut({ message: "the upload ended early" }))) : bytes
    const result = yield* Effect.result(
      spoolJsonFile(content, { company: "ACME", spool, batchSize: 3, responseErrorsCap: 4, codesInMemory: options.codesInMemory, productMaxValues: PRODUCT_MAX_VALUES, format: options.format }, options.blockBytes)
    )
    if (Result.isFailure(result)) return { failure: `${result.failure._tag}: ${result.failure.message}` }
    const records = (yield* Stream.runCollect(spool.records())).map((record) =>
      record._tag === "Batch"
        ? options.format === "columns" ? "(a JSON batch)" : `B${record.count} ${decoder.decode(record.productsJson)}`
        : record._tag === "Columns"
        ? options.format === "columns" ? `B${record.count} ${valuesOf(entryOfColumns({ ...BATCH, products: record.count }, record.body))}` : "(a columns batch)"
        : `E ${record.json}`
    )
    return { totals: JSON.parse(JSON.stringify(result.success)) as unknown, records }
  }))

const BATCH = { processCode: "11111111-1111-4111-8111-111111111111", company: "ACME", batchNo: 0 }
/** An encoded batch's columns as the values PostgreSQL would read (the has-null flags aside), as JSON. */
const valuesOf = (entry: Uint8Array) => JSON.stringify(Result.getOrThrow(columnValues(Result.getOrThrow(decodeEncodedBatch(entry)))))
/** A JSON batch's records as the columns encodeBatch gives for its products: what a columns batch of the same products must hold. */
const asColumns = (records: ReadonlyArray<string>) =>
  records.map((record) => {
    const match = /^B(\d+) ([\s\S]*)$/.exec(record)
    if (match === null) return record
    // Sorted as a columns batch is, so that its SKUs sent (the last column) come in the same order.
    const products = [...Schema.decodeUnknownSync(Schema.Array(Product))(JSON.parse(match[2]!))].sort((a, b) => (a.productCode < b.productCode ? -1 : 1))
    return `B${match[1]} ${valuesOf(encodeBatch(BATCH, products))}`
  })

/** Products of every kind a file holds: valid (compact or pretty-printed), invalid, duplicated, of another company, with an undeclared key, over PRODUCT_MAX_VALUES. */
const productText = fc.tuple(fc.integer({ min: 0, max: 40 }), fc.constantFrom("valid", "pretty", "invalid", "otherCompany", "extraKey", "noSku", "manyValues"))
  .map(([code, kind]) => {
    const product = sampleProduct(code)
    switch (kind) {
      case "pretty":
        return JSON.stringify(product, null, 2)
      case "invalid":
        return JSON.stringify({ ...product, price: -1, weight: "heavy" })
      case "otherCompany":
        return JSON.stringify({ ...product, companyCode: "OTHER" })
      case "extraKey":
        return JSON.stringify({ ...product, internalNote: "not for the queue", barcodes: product.barcodes.map((b) => ({ ...b, x: 1 })) })
      case "manyValues":
        return JSON.stringify({ ...product, junk: Array.from({ length: PRODUCT_MAX_VALUES }, () => ({})) })
      case "noSku": {
        const { skuCode: _, ...rest } = product
        return JSON.stringify(rest)
      }
      default:
        return JSON.stringify(product)
    }
  })

/** A file (object or top-level array), perhaps spoiled at one byte or cut short, in random chunks. */
const file = fc.record({
  products: fc.array(productText, { maxLength: 24 }),
  topArray: fc.boolean(),
  spoil: fc.option(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom("}", "]", ",", "x", "\"", "\n", "\\", "\u00ff", "cut"))),
  chunk: fc.integer({ min: 1, max: 5000 }),
  blockBytes: fc.integer({ min: 1, max: 8000 }),
  cut: fc.boolean(),
  codesInMemory: fc.integer({ min: 1, max: 3 })
}).map(({ products, topArray, spoil, chunk, blockBytes, cut, codesInMemory }) => {
  const text = topArray ? `[${products.join(",\n")}]` : `{"source":"test","products":[${products.join(",")}],"n":1}`
  let bytes = encoder.encode(text)
  if (spoil !== null) {
    const [where, what] = spoil
    const at = Math.floor(where * bytes.length)
    bytes = what === "cut" ? bytes.subarray(0, at) : new Uint8Array([...bytes.subarray(0, at), ...encoder.encode(what), ...bytes.subarray(at + 1)])
  }
  const chunks: Array<Uint8Array> = []
  for (let i = 0; i < bytes.length; i += chunk) chunks.push(bytes.subarray(i, i + chunk))
  return { chunks, blockBytes, cut, codesInMemory }
})

layer(JsonValidationPool.make(2))("spoolJsonFile in validation threads", (it) => {
  it.effect("ends exactly as on the event loop's thread: the same failure and message, or the same totals, batches and errors (its codes spilled to disk or not)", () =>
    Effect.gen(function*() {
      const threads = yield* JsonValidationPool
      const inline = JsonValidationPool.make(0)
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(file, async (input) => {
            const viaThreads = await Effect.runPromise(Effect.provideService(outcome(input.chunks, input), JsonValidationPool, threads))
            const onThisThread = await Effect.runPromise(Effect.provide(outcome(input.chunks, { ...input, codesInMemory: undefined }), inline))
            expect(viaThreads).toEqual(onThisThread)
          }),
          { numRuns: 150 }
        )
      )
    }))

  it.effect("with the columns format, spools the batches the JSON format does, as columns, in threads and on the event loop's thread alike", () =>
    Effect.gen(function*() {
      const threads = yield* JsonValidationPool
      const inline = JsonValidationPool.make(0)
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(file, async (input) => {
            const json = await Effect.runPromise(Effect.provide(outcome(input.chunks, { ...input, codesInMemory: undefined }), inline))
            const expected = "records" in json ? { ...json, records: asColumns(json.records) } : json
            const viaThreads = await Effect.runPromise(Effect.provideService(outcome(input.chunks, { ...input, format: "columns" }), JsonValidationPool, threads))
            const onThisThread = await Effect.runPromise(Effect.provide(outcome(input.chunks, { ...input, format: "columns" }), inline))
            expect(viaThreads).toEqual(expected)
            expect(onThisThread).toEqual(expected)
          }),
          { numRuns: 60 }
        )
      )
    }))

  it.effect("a product that is not well-formed wins over a fault further on and over the upload failing, as when the scanner stopped at it", () =>
    Effect.gen(function*() {
      const products = [0, 1, 2, 3].map((i) => JSON.stringify(sampleProduct(i)))
      products[1] = products[1]!.replace("\"price\":", "\"price\":+")
      const body = `{"products":[${products.join(",")}]`
      // The upload failing at its end; the scanner stopping at a fault of the structure, in the same chunk or a later one.
      const inputs = [
        { chunks: [encoder.encode(body)], cut: true },
        { chunks: [encoder.encode(`${body}]}`)], cut: false },
        { chunks: [encoder.encode(body), encoder.encode("]}")], cut: false }
      ]
      // In a block sent before the failure, and in the block still being filled when it came.
      for (const { chunks, cut } of inputs) {
        for (const blockBytes of [64, 1 << 20]) {
          const { failure } = yield* outcome(chunks, { cut, blockBytes })
          expect(failure).toMatch(/^JsonSyntaxError: unexpected character '\+': expected a value in product 1 at byte \d+ \(line 1, column \d+\)$/)
        }
      }
    }))
})

describe("spoolJsonFile and PRODUCT_MAX_VALUES", () => {
  it.effect("refuses the file at a product with more values, before parsing it, in threads and on the event loop's thread alike", () =>
    Effect.gen(function*() {
      const products = [0, 1, 2].map((i) => JSON.stringify(sampleProduct(i)))
      products[1] = JSON.stringify({ ...sampleProduct(1), junk: Array.from({ length: PRODUCT_MAX_VALUES }, () => []) })
      const chunks = [encoder.encode(`{"products":[${products.join(",")}]}`)]
      const offset = 14 + products[0]!.length
      for (const pool of [JsonValidationPool.make(1), JsonValidationPool.make(0)]) {
        const { failure } = yield* outcome(chunks, { cut: false, blockBytes: 1 << 20 }).pipe(Effect.provide(pool))
        expect(failure).toBe(`JsonSyntaxError: product 1 has more than ${PRODUCT_MAX_VALUES} JSON values (PRODUCT_MAX_VALUES) at byte ${offset} (line 1, column ${offset + 1})`)
      }
    }))
})

describe("spoolJsonFile's blocks in flight", () => {
  it.effect("at most 2 per thread are out at once, and a file of many blocks is split into a few buffers, reused, even when the upload hands over all its chunks at once", () =>
    Effect.gen(function*() {
      const threads = 2
      let out = 0
      let mostOut = 0
      const buffers = new Set<ArrayBuffer | SharedArrayBuffer>()
      // Results come back out of order (a block waits a varying number of turns), as from real threads.
      const validate = (block: JsonBlock) =>
        Effect.gen(function*() {
          buffers.add(block.bytes)
          mostOut = Math.max(mostOut, ++out)
          for (let turn = 0; turn < 50 + ((block.firstIndex * 7) % 5) * 20; turn++) yield* Effect.yieldNow
          out--
          return runValidation({ block, encodeRows: false })
        })
      const products = Array.from({ length: 300 }, (_, i) => JSON.stringify(sampleProduct(i)))
      const bytes = encoder.encode(`[${products.join(",")}]`)
      const chunks: Array<Uint8Array> = []
      for (let i = 0; i < bytes.length; i += 700) chunks.push(bytes.subarray(i, i + 700))
      const blockBytes = 2 * products[0]!.length
      const totals = yield* Effect.scoped(Effect.gen(function*() {
        const spool = yield* makeLoadSpool(tmpdir())
        return yield* spoolJsonFile(Stream.fromIterable(chunks), { company: "ACME", spool, batchSize: 50, responseErrorsCap: 4 }, blockBytes)
      })).pipe(Effect.provideService(JsonValidationPool, { threads, validate }))
      expect(totals.accepted).toBe(300)
      expect(mostOut).toBe(threads * 2)
      // 150 blocks through few buffers: those being validated, as many read back and waiting for their
      // turn in file order, the one the spool writer is reading and the one being filled.
      expect(buffers.size).toBeLessThanOrEqual(2 * threads * 2 + 2)
    }))
})

describe("spoolJsonFile when a validation thread dies", () => {
  it.effect("fails the load with ValidationThreadFailed (nothing spooled is published: the caller publishes only totals), without hanging", () =>
    Effect.gen(function*() {
      const crashing = JsonValidationPool.make(1, {
        filename: new URL("./support/crashingValidationThread.ts", import.meta.url).href,
        execArgv: ["--import", "tsx"]
      })
      const chunks = [encoder.encode(`[${[0, 1, 2].map((i) => JSON.stringify(sampleProduct(i))).join(",")}]`)]
      const result = yield* Effect.scoped(Effect.gen(function*() {
        const spool = yield* makeLoadSpool(tmpdir())
        return yield* Effect.result(spoolJsonFile(Stream.fromIterable(chunks), { company: "ACME", spool, batchSize: 3, responseErrorsCap: 4 }, 64))
      })).pipe(Effect.provide(crashing))
      expect(Result.isFailure(result) && result.failure._tag).toBe("ValidationThreadFailed")
      expect(Result.isFailure(result) && result.failure.message).toMatch(/exited with code: 70/)
    }))
})
