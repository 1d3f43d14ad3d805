import { describe, expect, it } from "@effect/vitest"
import { type CsvFileHeaders, type CsvFileName, CsvLayouts } from "@retail/ingest"
import { csvFilesOf, type CsvFiles, sampleProduct, sampleProducts } from "@retail/testkit"
import { Effect, Exit, Stream } from "effect"
import { tmpdir } from "node:os"
import { spoolJoinedPartitions } from "../src/csv/CsvJoinedSpool.ts"
import { makeCsvJoinPool } from "../src/csv/CsvJoinPool.ts"
import { makeCsvPartitions } from "../src/csv/CsvPartitions.ts"
import { partitionCsvFile } from "../src/csv/CsvPartSplitter.ts"
import { makeLoadSpool, type SpoolRecord } from "../src/spool/LoadSpool.ts"
import { spoolItems } from "../src/spool/SpoolItems.ts"
import { joinedItems } from "../src/csv/JoinedItems.ts"

const encoder = new TextEncoder()
const decoder = new TextDecoder()
const FILES: ReadonlyArray<CsvFileName> = ["productsCsv", "hierarchiesCsv", "barcodesCsv", "attributesCsv"]

/** Four files with every kind of failure, spread over the partitions: bad cells, a duplicate, orphans, a missing productCode, a foreign company, no hierarchy. */
const troubledFiles = (): CsvFiles => {
  const products = sampleProducts(600, { prefix: "W" }).map((p, i) =>
    i % 97 === 5 ? { ...p, companyCode: "OTHER" } : i % 89 === 7 ? { ...p, hierarchies: [] } : p
  )
  const files = csvFilesOf(products)
  const orphans = csvFilesOf([sampleProduct(9001, { prefix: "W" }), sampleProduct(9002, { prefix: "W" })])
  const rowsOf = (text: string) => text.split("\n").slice(1).join("\n")
  const productLines = files.productsCsv.split("\n")
  for (const line of [2, 150, 333]) productLines[line] = productLines[line]!.replace(/,199\.9,/, ",12abc,")
  const productsCsv = [...productLines.slice(0, -1), productLines[40]!, productLines[41]!, ""].join("\n")
  return {
    productsCsv,
    hierarchiesCsv: files.hierarchiesCsv.replace(/(W00000017,H-TOOLS,)1,/, "$1one,"),
    barcodesCsv: files.barcodesCsv + rowsOf(orphans.barcodesCsv) + ",7750000000000,MAIN\n",
    attributesCsv: files.attributesCsv + rowsOf(orphans.attributesCsv)
  }
}

/** Splits the files into `count` partitions as the endpoint does, then spools them with `threads` join threads (0: in this fiber). */
const spooled = (files: CsvFiles, count: number, threads: number, firstOutputBytes?: number) =>
  Effect.scoped(Effect.gen(function*() {
    const partitions = yield* makeCsvPartitions(tmpdir(), count)
    const headers: Partial<Record<CsvFileName, CsvFileHeaders[CsvFileName]>> = {}
    for (const file of FILES) headers[file] = yield* partitionCsvFile(Stream.make(encoder.encode(files[file])), CsvLayouts[file], partitions)
    yield* partitions.flush
    const { attributesCsv, barcodesCsv, hierarchiesCsv, productsCsv } = headers
    if (attributesCsv === undefined || barcodesCsv === undefined || hierarchiesCsv === undefined || productsCsv === undefined) {
      return yield* Effect.die(new Error("a file was not read"))
    }
    const all = { attributesCsv, barcodesCsv, hierarchiesCsv, productsCsv }
    const spool = yield* makeLoadSpool(tmpdir())
    const options = { company: "ACME", spool, batchSize: 50, responseErrorsCap: 7, ...(firstOutputBytes === undefined ? {} : { firstOutputBytes }) }
    const totals = yield* (threads === 0
      ? spoolItems(joinedItems(partitions, all), options)
      : spoolJoinedPartitions(partitions, all, yield* makeCsvJoinPool(threads), options))
    const records = yield* Stream.runCollect(spool.records())
    return { totals, records: records.map((r: SpoolRecord) => r._tag === "Batch" ? { count: r.count, json: decoder.decode(r.productsJson) } : r) }
  }))

describe("CSV partitions joined in worker threads", () => {
  it.live("spool exactly what the in-process join spools: the same batches, error pages, totals and first errors, in the same order", () =>
    Effect.gen(function*() {
      const files = troubledFiles()
      const inProcess = yield* spooled(files, 5, 0)
      const threaded = yield* spooled(files, 5, 2)
      // Output buffers far too small: every partition goes on in a buffer of its own, and the next one gets a larger shared one.
      const outgrown = yield* spooled(files, 5, 2, 4096)
      expect(inProcess.totals.failed).toBeGreaterThan(10)
      expect(inProcess.records.filter((r) => "count" in r).length).toBeGreaterThan(5)
      expect(threaded.totals).toEqual(inProcess.totals)
      expect(threaded.records).toEqual(inProcess.records)
      expect(outgrown.totals).toEqual(inProcess.totals)
      expect(outgrown.records).toEqual(inProcess.records)
    }), 120_000)

  it.live("a thread that dies fails its partition with StorageFailed, and the pool goes on with a new thread", () =>
    Effect.scoped(Effect.gen(function*() {
      const pool = yield* makeCsvJoinPool(1, {
        entry: { filename: new URL("./fixtures/CrashingCsvJoinWorker.ts", import.meta.url).href, execArgv: ["--import", "tsx"] }
      })
      const headers = csvFilesOf([])
      const taskHeaders = Object.fromEntries(FILES.map((file) => [file, { fields: headers[file].trim().split(","), delimiter: "," as const }]))
      const task = (path: string) => ({ path, company: "ACME", headers: taskHeaders as Record<CsvFileName, { fields: Array<string>; delimiter: "," }> })
      const crashed = yield* Effect.exit(pool.run(task("/nonexistent/crash-partition.rows")))
      expect(crashed).toEqual(Exit.fail(expect.objectContaining({
        _tag: "StorageFailed",
        message: expect.stringMatching(/^The CSV files could not be joined \(.*exited.*\); nothing was published\. Retry later\.$/)
      })))
      const empty = yield* pool.run(task("/nonexistent/partition-0.rows"))
      expect(empty.accepted.length).toBe(0)
    })), 120_000)
})
