import { ensureInputs, type InputFiles } from "../../parsers/generate.ts"
import { type Benchmark, BenchmarkFailure, figure, type Figure } from "../Benchmark.ts"
import { itemsPerSecond, measureCandidate, megabytesPerSecond } from "../support/Candidates.ts"
import { acceptedLoad, loadState } from "../support/Http.ts"
import { startServer } from "../support/ServerProcess.ts"
import { mintToken, runTag } from "../support/Tokens.ts"
import { uploadFiles } from "../support/Upload.ts"

/**
 * >>> HTTP MEASUREMENT OF /v1/handle-csv: switch this on once the endpoint is merged (branch issue-3-csv). <<<
 * `overHttp` below is written against the contract (packages/api FilesApi.ts: four multipart file parts)
 * but has never run against a real endpoint: check the part names and the answer when switching it on.
 */
export const HANDLE_CSV_OVER_HTTP = false

const csvParts = (files: InputFiles) => [
  { name: "productsCsv", file: files.productsCsv, contentType: "text/csv" },
  { name: "hierarchiesCsv", file: files.hierarchiesCsv, contentType: "text/csv" },
  { name: "barcodesCsv", file: files.barcodesCsv, contentType: "text/csv" },
  { name: "attributesCsv", file: files.attributesCsv, contentType: "text/csv" }
]

/** The four files over HTTP: from the first byte sent to the answer (after the last batch is published, as /handle-json). */
const overHttp = async (files: InputFiles, products: number, progress: (m: string) => void) => {
  const token = await mintToken(`BENCH-${runTag()}`)
  const server = await startServer({ RUN_WORKERS: "false" }, progress)
  try {
    server.rss.reset()
    const upload = await uploadFiles(`${server.url}/v1/handle-csv`, token, csvParts(files))
    const peakRssMiB = server.rss.peakMiB()
    const processCode = acceptedLoad({ status: upload.status, text: upload.body }, "POST /v1/handle-csv")
    const state = await loadState(server.url, processCode, token)
    if (state.totals.accepted !== products) throw new BenchmarkFailure(`load ${processCode} accepted ${state.totals.accepted} of ${products} products`)
    return { megabytesPerSecond: upload.bytes / 1e6 / upload.seconds, productsPerSecond: products / upload.seconds, peakRssMiB }
  } finally {
    await server.stop()
  }
}

export const handleCsv: Benchmark = {
  name: "handle-csv",
  description: "The four CSV files of /v1/handle-csv in the layout of packages/ingest (CsvLayout.ts), generated from the same products as handle-json (seed 42): each parser reads all four files one after the other in its own process.",
  sizeUnit: "products (with their hierarchies, barcodes and attributes)",
  defaultSize: 200_000,
  smokeSize: 300,
  open: async (setup) => {
    setup.progress(`generating ${setup.size} products (cached in the OS temp dir)`)
    const files = await ensureInputs(setup.size)
    const paths = csvParts(files).map((p) => p.file)
    if (!HANDLE_CSV_OVER_HTTP) setup.note("POST /v1/handle-csv is not measured yet: the endpoint is not merged (HANDLE_CSV_OVER_HTTP in benchmarks/src/suite/HandleCsv.ts). Only the in-process parsers ran.")

    const run = async (): Promise<ReadonlyArray<Figure>> => {
      const csvParse = await measureCandidate("csv:csv-parse-arrays", paths)
      const udsv = await measureCandidate("csv:udsv-stringArrs", paths)
      const ours = await measureCandidate("csv:mine-typed-records", paths)
      setup.progress(`csv-parse ${megabytesPerSecond(csvParse).toFixed(1)} MB/s, uDSV ${megabytesPerSecond(udsv).toFixed(1)} MB/s, CsvRecordReader ${megabytesPerSecond(ours).toFixed(1)} MB/s`)
      const figures: Array<Figure> = []
      if (HANDLE_CSV_OVER_HTTP) {
        const http = await overHttp(files, setup.size, setup.progress)
        figures.push(
          figure("MB/s over HTTP, first byte to last batch published", "MB/s", http.megabytesPerSecond, {
            limit: { name: "csv-parse alone (arrays), same files", sample: megabytesPerSecond(csvParse) },
            goal: { on: "median", atLeast: 40, source: "issue 3" }
          }),
          figure("products/s over HTTP", "products/s", http.productsPerSecond),
          figure("server peak RSS during the upload", "MiB", http.peakRssMiB, { better: "lower", goal: { on: "median", atMost: 256, source: "issue 3" } })
        )
      }
      figures.push(
        figure("in-process: csv-parse alone (arrays)", "MB/s", megabytesPerSecond(csvParse)),
        figure("in-process: uDSV alone (stringArrs)", "MB/s", megabytesPerSecond(udsv)),
        figure("in-process: project CsvRecordReader (typed records, header check)", "MB/s", megabytesPerSecond(ours), {
          limit: { name: "uDSV alone, same files", sample: megabytesPerSecond(udsv) }
        }),
        figure("in-process: project CsvRecordReader rows/s", "rows/s", itemsPerSecond(ours))
      )
      return figures
    }
    return { run, close: async () => undefined }
  }
}
