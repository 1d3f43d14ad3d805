import { constants } from "node:buffer"
import { statSync } from "node:fs"
import { ensureInputs } from "../../parsers/generate.ts"
import { type Benchmark, BenchmarkFailure, figure, type Figure } from "../Benchmark.ts"
import { databaseUrl, redisUrl } from "../StoreUrls.ts"
import { itemsPerSecond, measureCandidate, megabytesPerSecond } from "../support/Candidates.ts"
import { acceptedLoad, loadState } from "../support/Http.ts"
import { startServer } from "../support/ServerProcess.ts"
import { mintToken, runTag } from "../support/Tokens.ts"
import { uploadFiles } from "../support/Upload.ts"

const FASTEST = "fastest in-process parse of the file (scanner or whole-file JSON.parse, best of the run)"
/** stream-json's streamArray with streamValues: false: the faster of its two set-ups, about 3x the default here. */
const STREAM_JSON = "json:stream-json-streamArray-streamValues-false"

export const handleJson: Benchmark = {
  name: "handle-json",
  description: "POST /v1/handle-json with a generated products file (seed 42, ~1.8 KB per product): from the first byte sent to the answer, which comes after the load's last batch was published (services/upload/src/http/JsonFileLoad.ts); RUN_WORKERS=false.",
  sizeUnit: "products in the file",
  defaultSize: 200_000,
  smokeSize: 300,
  open: async (setup) => {
    setup.progress(`generating ${setup.size} products (cached in the OS temp dir)`)
    const files = await ensureInputs(setup.size)
    if (databaseUrl() === undefined) {
      setup.note("Database embedded: the server's RSS includes its in-memory PGlite (most of the idle RSS); set DATABASE_URL for the RSS goal, or read the growth figure.")
    }
    if (redisUrl() === undefined) {
      setup.note("Queue in-process: the server's peak RSS includes every published batch, which that queue holds in memory; set REDIS_URL for the RSS goal.")
    }
    // Past V8's longest string (2^29 - 24 characters) the whole file cannot even be read as text.
    const wholeFileParses = statSync(files.json).size <= constants.MAX_STRING_LENGTH
    if (!wholeFileParses) {
      setup.note(`Whole-file JSON.parse is not measured: the file is longer than the longest string V8 holds (${constants.MAX_STRING_LENGTH} characters), so the scanner alone is the limit.`)
    }
    setup.note("A fresh server per run. The parsers run in their own processes (benchmarks/parsers/candidates.ts), reading the file from disk in 64 KiB chunks.")
    setup.note(`stream-json is measured as \`${STREAM_JSON.replace("json:", "")}\` (streamValues: false, its faster set-up; the default one ran at about a third of it in benchmarks/parsers/results.md).`)

    const run = async (): Promise<ReadonlyArray<Figure>> => {
      const company = `BENCH-${runTag()}`
      const token = await mintToken(company)
      const server = await startServer({ RUN_WORKERS: "false" }, setup.progress)
      let upload
      let peakRss
      let idleRss
      try {
        idleRss = server.rss.currentMiB()
        server.rss.reset()
        upload = await uploadFiles(`${server.url}/v1/handle-json`, token, [{ name: "productsJson", file: files.json, contentType: "application/json" }])
        peakRss = server.rss.peakMiB()
        const processCode = acceptedLoad({ status: upload.status, text: upload.body }, "POST /v1/handle-json")
        const state = await loadState(server.url, processCode, token)
        if (state.totals.accepted !== setup.size) {
          throw new BenchmarkFailure(`load ${processCode} accepted ${state.totals.accepted} of ${setup.size} products`)
        }
        setup.progress(`upload: ${(upload.bytes / 1e6 / upload.seconds).toFixed(1)} MB/s, peak RSS ${peakRss.toFixed(0)} MiB (idle ${idleRss.toFixed(0)} MiB)`)
      } finally {
        await server.stop()
      }
      const scanner = await measureCandidate("json:scanner", [files.json])
      const whole = wholeFileParses ? await measureCandidate("json:JSON.parse-whole-file", [files.json]) : undefined
      const streamJson = await measureCandidate(STREAM_JSON, [files.json])
      const fastest = whole !== undefined && megabytesPerSecond(whole) > megabytesPerSecond(scanner) ? whole : scanner
      const wholeText = whole === undefined ? "not measured" : `${megabytesPerSecond(whole).toFixed(1)} MB/s`
      setup.progress(`in-process: scanner ${megabytesPerSecond(scanner).toFixed(1)} MB/s, JSON.parse ${wholeText}, stream-json ${megabytesPerSecond(streamJson).toFixed(1)} MB/s`)
      const seconds = upload.seconds
      return [
        figure("MB/s, first byte to last batch published", "MB/s", upload.bytes / 1e6 / seconds, {
          limit: { name: FASTEST, sample: megabytesPerSecond(fastest) },
          goal: { on: "median", atLeast: 60, source: "issue 3" }
        }),
        figure("products/s, first byte to last batch published", "products/s", setup.size / seconds, {
          limit: { name: FASTEST, sample: itemsPerSecond(fastest) }
        }),
        figure("server peak RSS during the upload", "MiB", peakRss, { better: "lower", goal: { on: "median", atMost: 256, source: "issue 3" } }),
        figure("server RSS growth during the upload (peak - RSS before it)", "MiB", Math.max(0, peakRss - idleRss), { better: "lower" }),
        figure("in-process: project scanner (JsonProductScanner)", "MB/s", megabytesPerSecond(scanner)),
        ...(whole === undefined ? [] : [
          figure("in-process: whole-file JSON.parse", "MB/s", megabytesPerSecond(whole)),
          figure("in-process: whole-file JSON.parse, peak RSS", "MiB", whole.peakRssMb, { better: "lower" })
        ]),
        figure("in-process: stream-json streamArray", "MB/s", megabytesPerSecond(streamJson), {
          limit: { name: "project scanner, same run", sample: megabytesPerSecond(scanner) }
        })
      ]
    }
    return { run, close: async () => undefined }
  }
}
