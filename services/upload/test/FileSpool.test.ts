import { describe, expect, it } from "@effect/vitest"
import { validateProduct } from "@retail/domain"
import { sampleProduct } from "@retail/testkit"
import { Effect, Result, Stream } from "effect"
import { readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { BatchBuffer } from "../src/spool/BatchBuffer.ts"
import { failedItem, type FileProduct, productItem } from "@retail/ingest"
import { makeLoadSpool, type SpoolRecord } from "../src/spool/LoadSpool.ts"
import { spoolItems } from "../src/spool/SpoolItems.ts"

const encoder = new TextEncoder()
const decoder = new TextDecoder()

const decoded = (raw: unknown) =>
  Result.getOrThrowWith(validateProduct(raw), (failure) => new Error(`sample product refused: ${failure.error}`))

/** A product as a JSON file may hold it: its text (formatted as given) and what JSON.parse makes of it. */
const fromText = (index: number, text: string): FileProduct => productItem(index, JSON.parse(text), encoder.encode(text))

const spooled = (items: ReadonlyArray<FileProduct>, batchSize: number, codesInMemory?: number) =>
  Effect.scoped(Effect.gen(function*() {
    const spool = yield* makeLoadSpool(tmpdir())
    const options = { company: "ACME", spool, batchSize, responseErrorsCap: 10 }
    const totals = yield* spoolItems(Stream.fromIterable(items), codesInMemory === undefined ? options : { ...options, codesInMemory })
    const records = yield* Stream.runCollect(spool.records())
    return { totals, records, leftInFolder: readdirSync(spool.folder) }
  }))

const batchesOf = (records: ReadonlyArray<SpoolRecord>) =>
  records.flatMap((record) => (record._tag === "Batch" ? [{ count: record.count, text: decoder.decode(record.productsJson) }] : []))

describe("spoolItems and the spool", () => {
  it.effect("spools a product as its own bytes when validation kept all of it, else re-encoded; errors in pages; records in order", () =>
    Effect.gen(function*() {
      // Pretty-printed (newlines inside a product) and compact, one with an undeclared key, one invalid, one failed while read.
      const pretty = JSON.stringify(sampleProduct(0), null, 2)
      const compact = JSON.stringify(sampleProduct(1))
      const withExtra = JSON.stringify({ ...sampleProduct(2), internalNote: "not for the queue" })
      const invalid = JSON.stringify({ ...sampleProduct(3), price: -1 })
      const items = [fromText(0, pretty), fromText(1, compact), fromText(2, withExtra), fromText(3, invalid), failedItem("SKU-X", "unreadable"), productItem(5, sampleProduct(5))]
      const { records, totals } = yield* spooled(items, 2)

      expect(totals).toMatchObject({ total: 6, accepted: 4, failed: 2 })
      const batches = batchesOf(records)
      expect(batches.map((b) => b.count)).toEqual([2, 2])
      expect(batches[0]?.text).toBe(`[${pretty},${compact}]`)
      expect(batches[1]?.text).toBe(`[${JSON.stringify(decoded(JSON.parse(withExtra)))},${JSON.stringify(decoded(sampleProduct(5)))}]`)
      expect(batches[1]?.text).not.toContain("internalNote")
      const errors = records.flatMap((record) => (record._tag === "Errors" ? JSON.parse(record.json) : []))
      expect(errors).toEqual([
        { sku: "SKU-P00000003", error: expect.stringContaining("price") },
        { sku: "SKU-X", error: "unreadable" }
      ])
    }))

  it.effect("fails every later occurrence of a productCode at its first index, the same when the codes spill to disk; no run file outlives the spooling", () =>
    Effect.gen(function*() {
      const items = Array.from({ length: 60 }, (_, i) => productItem(i, { ...sampleProduct(i % 17), skuCode: `SKU-${i}` }))
      const inMemory = yield* spooled(items, 5)
      const spilled = yield* spooled(items, 5, 2)
      expect(spilled.totals).toEqual(inMemory.totals)
      expect(spilled.records).toEqual(inMemory.records)
      expect(inMemory.totals).toMatchObject({ total: 60, accepted: 17, failed: 43 })
      expect(inMemory.totals.firstErrors[0]).toMatchObject({
        sku: "SKU-17",
        error: `productCode: ${sampleProduct(0).productCode} already appears at products[0] of this load; the first occurrence wins`
      })
      expect(spilled.totals.firstErrors[9]).toMatchObject({
        sku: "SKU-26",
        error: `productCode: ${sampleProduct(9).productCode} already appears at products[9] of this load; the first occurrence wins`
      })
      expect(spilled.leftInFolder).toEqual(["load.spool"])
    }))

  it.effect("a run file that cannot be written fails the spooling with StorageFailed", () =>
    Effect.gen(function*() {
      const items = Array.from({ length: 10 }, (_, i) => productItem(i, sampleProduct(i)))
      const result = yield* Effect.scoped(Effect.gen(function*() {
        const spool = yield* makeLoadSpool(tmpdir())
        // The spool file stays open; the folder the runs would go to is gone.
        rmSync(spool.folder, { recursive: true })
        return yield* Effect.result(spoolItems(Stream.fromIterable(items), { company: "ACME", spool, batchSize: 5, responseErrorsCap: 10, codesInMemory: 2 }))
      }))
      expect(Result.isFailure(result) && result.failure._tag).toBe("StorageFailed")
      expect(Result.isFailure(result) && result.failure.message).toMatch(/^The upload could not be checked for repeated productCodes in temporary storage \(ENOENT/)
    }))

  it.effect("reads back an empty spool as no records", () =>
    Effect.map(spooled([], 250), ({ records, totals }) => {
      expect(records).toEqual([])
      expect(totals).toMatchObject({ total: 0, accepted: 0, failed: 0 })
    }))
})

describe("BatchBuffer", () => {
  it("builds JSON arrays from bytes and text, and reuses a buffer given back without touching arrays still out", () => {
    const batch = new BatchBuffer(4)
    batch.appendBytes(encoder.encode(`{"a":"é"}`))
    batch.appendText(`{"b":"€𝄞"}`)
    const first = batch.take()
    expect(JSON.parse(decoder.decode(first))).toEqual([{ a: "é" }, { b: "€𝄞" }])
    batch.appendText("1")
    const second = batch.take()
    batch.recycle(first)
    batch.appendText("[2,3]")
    expect(decoder.decode(second)).toBe("[1]")
    expect(decoder.decode(batch.take())).toBe("[[2,3]]")
  })
})
