import { ensureInputs, type InputFiles } from "../../parsers/generate.ts"
import { type Benchmark, BenchmarkFailure, figure, type Figure } from "../Benchmark.ts"
import { databaseUrl, redisUrl } from "../StoreUrls.ts"
import { itemsPerSecond, measureCandidate, megabytesPerSecond } from "../support/Candidates.ts"
import { measureCsvPipeline } from "../support/CsvPipeline.ts"
import { acceptedLoad, loadState } from "../support/Http.ts"
import { processCpuSeconds } from "../support/ProcessCpu.ts"
import { startServer } from "../support/ServerProcess.ts"
import { mintToken, runTag } from "../support/Tokens.ts"
import { uploadFiles } from "../support/Upload.ts"

/** The endpoint's four file parts (docs/csv-format.md), in the order curl -F would send them there. */
export const csvParts = (files: InputFiles) => [
  { name: "productsCsv", file: files.productsCsv, contentType: "text/csv" },
  { name: "hierarchiesCsv", file: files.hierarchiesCsv, contentType: "text/csv" },
  { name: "barcodesCsv", file: files.barcodesCsv, contentType: "text/csv" },
  { name: "attributesCsv", file: files.attributesCsv, contentType: "text/csv" }
]

interface HttpRun {
  readonly bytes: number
  readonly seconds: number
  readonly peakRssMiB: number
  readonly idleRssMiB: number
  /** The server's CPU time (all its threads) from the first byte sent to the answer; undefined without /proc. */
  readonly serverCpuSeconds: number | undefined
}

/** The four files over HTTP: from the first byte sent to the answer (after the last batch is published, as /handle-json). */
const overHttp = async (files: InputFiles, products: number, progress: (m: string) => void): Promise<HttpRun> => {
  const token = await mintToken(`BENCH-${runTag()}`)
  const server = await startServer({ RUN_WORKERS: "false" }, progress)
  try {
    const idleRssMiB = server.rss.currentMiB()
    server.rss.reset()
    const cpuBefore = processCpuSeconds(server.pid)
    const upload = await uploadFiles(`${server.url}/v1/handle-csv`, token, csvParts(files))
    const cpuAfter = processCpuSeconds(server.pid)
    const peakRssMiB = server.rss.peakMiB()
    const processCode = acceptedLoad({ status: upload.status, text: upload.body }, "POST /v1/handle-csv")
    const state = await loadState(server.url, processCode, token)
    if (state.totals.accepted !== products) throw new BenchmarkFailure(`load ${processCode} accepted ${state.totals.accepted} of ${products} products`)
    const serverCpuSeconds = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore
    return { bytes: upload.bytes, seconds: upload.seconds, peakRssMiB, idleRssMiB, serverCpuSeconds }
  } finally {
    await server.stop()
  }
}

export const handleCsv: Benchmark = {
  name: "handle-csv",
  description: "POST /v1/handle-csv with the four CSV files of docs/csv-format.md, generated from the same products as handle-json (seed 42, ~690 bytes of CSV per product): from the first byte sent to the answer, which comes after the load's last batch was published (services/upload/src/http/CsvFileLoad.ts); RUN_WORKERS=false. Beside it, in their own processes on the same files: the endpoint's pipeline without HTTP (benchmarks/csv/join.ts), csv-parse alone, uDSV alone and the project's CsvRecordReader.",
  sizeUnit: "products (with their hierarchies, barcodes and attributes)",
  defaultSize: 200_000,
  smokeSize: 300,
  open: async (setup) => {
    setup.progress(`generating ${setup.size} products (cached in the OS temp dir)`)
    const files = await ensureInputs(setup.size)
    const paths = csvParts(files).map((p) => p.file)
    if (databaseUrl() === undefined) setup.note("Database embedded: the server's RSS includes its in-memory PGlite; set DATABASE_URL for the RSS goal, or read the growth figure.")
    if (redisUrl() === undefined) setup.note("Queue in-process: the server's peak RSS includes every published batch, which that queue holds in memory; set REDIS_URL for the RSS goal.")
    setup.note("A fresh server per run. The pipeline and the parsers read the files from disk in 64 KiB chunks; the pipeline writes its partitions and spool to the OS temp dir as the endpoint does to SPOOL_DIR.")

    const run = async (): Promise<ReadonlyArray<Figure>> => {
      const http = await overHttp(files, setup.size, setup.progress)
      const pipeline = await measureCsvPipeline(paths, setup.size)
      const csvParse = await measureCandidate("csv:csv-parse-arrays", paths)
      const udsv = await measureCandidate("csv:udsv-stringArrs", paths)
      const ours = await measureCandidate("csv:mine-typed-records", paths)
      const httpMBs = http.bytes / 1e6 / http.seconds
      const pipelineMBs = pipeline.bytes / 1e6 / (pipeline.ms / 1000)
      setup.progress(
        `HTTP ${httpMBs.toFixed(1)} MB/s, server CPU ${http.serverCpuSeconds?.toFixed(2) ?? "?"} s, peak RSS ${http.peakRssMiB.toFixed(0)} MiB (idle ${http.idleRssMiB.toFixed(0)} MiB); ` +
          `pipeline ${pipelineMBs.toFixed(1)} MB/s; csv-parse ${megabytesPerSecond(csvParse).toFixed(1)} MB/s, uDSV ${megabytesPerSecond(udsv).toFixed(1)} MB/s, CsvRecordReader ${megabytesPerSecond(ours).toFixed(1)} MB/s`
      )
      const csvParseLimit = { name: "csv-parse alone (arrays), same files", sample: megabytesPerSecond(csvParse) }
      return [
        figure("MB/s over HTTP, first byte to last batch published", "MB/s", httpMBs, {
          limit: csvParseLimit,
          goal: { on: "median", atLeast: 40, source: "issue 3" }
        }),
        figure("products/s over HTTP", "products/s", setup.size / http.seconds),
        ...(http.serverCpuSeconds === undefined || http.serverCpuSeconds <= 0 ? [] : [
          // CSV_JOIN_THREADS worker threads included: on a shared machine this, not wall time, compares builds.
          figure("MB per server CPU-second over HTTP (all threads)", "MB/s", http.bytes / 1e6 / http.serverCpuSeconds)
        ]),
        figure("server peak RSS during the upload", "MiB", http.peakRssMiB, { better: "lower", goal: { on: "median", atMost: 256, source: "issue 3" } }),
        figure("server RSS growth during the upload (peak - RSS before it)", "MiB", Math.max(0, http.peakRssMiB - http.idleRssMiB), { better: "lower" }),
        figure("in-process: the endpoint's pipeline without HTTP (split, join, validate, spool)", "MB/s", pipelineMBs, { limit: csvParseLimit }),
        figure("in-process: the endpoint's pipeline, MB per CPU-second", "MB/s", pipeline.bytes / 1e6 / (pipeline.cpuMs / 1000)),
        figure("in-process: the endpoint's pipeline, peak RSS (under tsx)", "MiB", pipeline.peakRssMb, { better: "lower" }),
        figure("in-process: csv-parse alone (arrays)", "MB/s", megabytesPerSecond(csvParse)),
        figure("in-process: uDSV alone (stringArrs)", "MB/s", megabytesPerSecond(udsv)),
        figure("in-process: project CsvRecordReader (typed records, header check)", "MB/s", megabytesPerSecond(ours), {
          limit: { name: "uDSV alone, same files", sample: megabytesPerSecond(udsv) }
        }),
        figure("in-process: project CsvRecordReader rows/s", "rows/s", itemsPerSecond(ours))
      ]
    }
    return { run, close: async () => undefined }
  }
}
