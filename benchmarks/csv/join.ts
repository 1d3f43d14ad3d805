// One measured run of the /handle-csv pipeline without HTTP: the four files are streamed from disk through
// the same code as the endpoint (partition split, per-partition join, validation, spool), publish excluded.
// Usage (in its own process so peak RSS is its own, worker threads included; run.ts and the suite's handle-csv do this):
//   [CSV_JOIN_THREADS=2] node --import tsx benchmarks/csv/join.ts <productsCsv> <hierarchiesCsv> <barcodesCsv> <attributesCsv>
// CSV_JOIN_THREADS as the server reads it (default 2; 0 joins in the main thread).
import { type CsvFileHeaders, CsvLayouts } from "@retail/ingest"
import { Effect, Stream } from "effect"
import { createReadStream, statSync } from "node:fs"
import { tmpdir } from "node:os"
import v8 from "node:v8"
import { spoolJoinedPartitions } from "../../services/upload/src/csv/CsvJoinedSpool.ts"
import { makeCsvJoinPool } from "../../services/upload/src/csv/CsvJoinPool.ts"
import { makeCsvPartitions, partitionCountFor } from "../../services/upload/src/csv/CsvPartitions.ts"
import { partitionCsvFile } from "../../services/upload/src/csv/CsvPartSplitter.ts"
import { makeLoadSpool } from "../../services/upload/src/spool/LoadSpool.ts"
import { spoolItems } from "../../services/upload/src/spool/SpoolItems.ts"
import { joinedItems } from "../../services/upload/src/csv/JoinedItems.ts"

const [productsPath, hierarchiesPath, barcodesPath, attributesPath] = process.argv.slice(2)
if (productsPath === undefined || hierarchiesPath === undefined || barcodesPath === undefined || attributesPath === undefined) {
  console.error("usage: join.ts <productsCsv> <hierarchiesCsv> <barcodesCsv> <attributesCsv>")
  process.exit(2)
}
const inputs = { productsCsv: productsPath, hierarchiesCsv: hierarchiesPath, barcodesCsv: barcodesPath, attributesCsv: attributesPath }
const bytes = Object.values(inputs).reduce((sum, path) => sum + statSync(path).size, 0)
const startRssMb = process.memoryUsage.rss() / 1048576
const threads = Number(process.env["CSV_JOIN_THREADS"] ?? 2)

const fileStream = (path: string) =>
  Stream.fromAsyncIterable(createReadStream(path, { highWaterMark: 64 * 1024 }) as AsyncIterable<Buffer>, (e) => new Error(String(e)))

let peakSampledMb = 0
let peakHeapMb = 0
const sampler = setInterval(() => {
  const usage = process.memoryUsage()
  peakSampledMb = Math.max(peakSampledMb, usage.rss / 1048576)
  peakHeapMb = Math.max(peakHeapMb, usage.heapUsed / 1048576)
}, 20)
const startHeapMb = process.memoryUsage().heapUsed / 1048576

const program = Effect.scoped(Effect.gen(function*() {
  const partitions = yield* makeCsvPartitions(tmpdir(), partitionCountFor(bytes))
  const pool = threads === 0 ? undefined : yield* makeCsvJoinPool(threads)
  const t0 = performance.now()
  const cpu0 = process.cpuUsage()
  const productsCsv = yield* partitionCsvFile(fileStream(inputs.productsCsv), CsvLayouts.productsCsv, partitions)
  const hierarchiesCsv = yield* partitionCsvFile(fileStream(inputs.hierarchiesCsv), CsvLayouts.hierarchiesCsv, partitions)
  const barcodesCsv = yield* partitionCsvFile(fileStream(inputs.barcodesCsv), CsvLayouts.barcodesCsv, partitions)
  const attributesCsv = yield* partitionCsvFile(fileStream(inputs.attributesCsv), CsvLayouts.attributesCsv, partitions)
  yield* partitions.flush
  const t1 = performance.now()
  const cpu1 = process.cpuUsage(cpu0)
  const splitRssMb = process.memoryUsage.rss() / 1048576
  const headers: CsvFileHeaders = { productsCsv, hierarchiesCsv, barcodesCsv, attributesCsv }
  const spool = yield* makeLoadSpool(tmpdir())
  const options = { company: "BENCH", spool, batchSize: 250, responseErrorsCap: 1000 }
  const totals = yield* (pool === undefined
    ? spoolItems(joinedItems(partitions, headers), options)
    : spoolJoinedPartitions(partitions, headers, pool, options))
  const t2 = performance.now()
  const cpu2 = process.cpuUsage(cpu0)
  return {
    bytes,
    threads,
    partitions: partitions.count,
    products: totals.total,
    accepted: totals.accepted,
    failed: totals.failed,
    splitMs: t1 - t0,
    joinMs: t2 - t1,
    ms: t2 - t0,
    splitCpuMs: (cpu1.user + cpu1.system) / 1000,
    cpuMs: (cpu2.user + cpu2.system) / 1000,
    startHeapMb,
    peakHeapMb,
    heapLimitMb: v8.getHeapStatistics().heap_size_limit / 1048576,
    startRssMb,
    splitRssMb,
    peakRssMb: Math.max(peakSampledMb, process.resourceUsage().maxRSS / 1024)
  }
}))

Effect.runPromise(program).then((result) => {
  clearInterval(sampler)
  console.log(JSON.stringify(result))
}, (error: unknown) => {
  clearInterval(sampler)
  console.error(error)
  process.exit(1)
})
