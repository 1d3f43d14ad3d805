import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ensureInputs } from "../../parsers/generate.ts"
import { type Benchmark, BenchmarkFailure, figure, type Figure } from "../Benchmark.ts"
import { databaseUrl, redisUrl } from "../StoreUrls.ts"
import { capacityOrders, capacityQuotes, daysAfter } from "../soak/CapacityTraffic.ts"
import { type LoadMix, loadTraffic, type SentLoad } from "../soak/LoadTraffic.ts"
import { sampleRss } from "../soak/RssSeries.ts"
import { forgetSentLoads, verifyInDatabase } from "../soak/Verify.ts"
import { waitFinal } from "../support/Http.ts"
import { startServer } from "../support/ServerProcess.ts"

interface Mix extends LoadMix {
  readonly fileProducts: number
  readonly quotesPerSecond: number
  readonly quoteConnections: number
  readonly ordersPerSecond: number
  readonly rssEveryMs: number
}

/** The steady rates: about a quarter of what the end-to-end benchmark persists, a hundredth of capacity's req/s. */
const FULL: Mix = {
  bodySizes: [10, 50, 200, 500, 1000],
  spoiledEvery: 4,
  loadProductsPerSecond: 1,
  fileLoadEverySeconds: 15,
  fileProducts: 2000,
  maxInFlight: 4,
  quotesPerSecond: 40,
  quoteConnections: 4,
  ordersPerSecond: 2,
  rssEveryMs: 1000
}
const SMOKE: Mix = { ...FULL, bodySizes: [5, 20], loadProductsPerSecond: 2, fileLoadEverySeconds: 2, fileProducts: 40, quotesPerSecond: 20, ordersPerSecond: 4, rssEveryMs: 250 }

/**
 * Limits set so that the soak measures service, not refusals: per-company rate and file-load slots
 * far above what the soak sends (every load is its own company anyway), capacity API keys unlimited
 * (their default). A 429 in the report would be a limit misconfigured here, not a fault.
 */
const LIMITS = {
  TOKEN_RATE_LIMIT_PER_SECOND: "1000",
  TOKEN_RATE_LIMIT_BURST: "2000",
  FILE_LOADS_PER_COMPANY: "16",
  API_KEY_RATE_LIMIT_PER_SECOND: "0"
}

/**
 * The server's heap is capped, as a container's memory limit would: uncapped on a large machine, V8
 * lets the heap grow into free memory for minutes (measured: +129 MiB/min over a 120 s soak, flat at
 * 301-316 MiB over 180 s with this cap), which a slope cannot tell from a leak. With the cap, a leak
 * ends in a crash or a rising floor. BENCH_SERVER_NODE_OPTIONS replaces it.
 */
const HEAP_CAP = "--max-old-space-size=256"

/** Warm-up before the RSS "start" figure: a tenth of the soak, between 1 and 15 s. */
const warmUpSeconds = (seconds: number) => Math.min(15, Math.max(1, Math.round(seconds / 10)))

export const soak: Benchmark = {
  name: "soak",
  description: "One server (the bundle, RUN_WORKERS=true) under steady mixed traffic for --size seconds: /v1/load-products (bodies of 10 to 1000 products, one in four with invalid products), /v1/handle-json, /v1/handle-json-int (internal listener) and /v1/handle-csv (2000 products each), POST /v1/delivery/capacity variants A and B, capacity orders and releases. Then every load must finish and PostgreSQL must hold every accepted product (counted per load, a sample compared field by field) and a ledger that never oversold.",
  sizeUnit: "seconds of traffic",
  defaultSize: 180,
  smokeSize: 5,
  defaultRuns: 1,
  // Without DATABASE_URL its server keeps its data in a folder (the end check opens it afterwards): the embedded PostgreSQL server, not the in-memory PGlite of the other benchmarks.
  configuration: () =>
    `servers under test: ${databaseUrl() === undefined ? "embedded PostgreSQL server (npm start's default database), data in a temporary DATA_DIR" : "PostgreSQL (DATABASE_URL)"}, ` +
    `${redisUrl() === undefined ? "in-process queue" : "Redis (REDIS_URL)"}, the npm start bundle with its Node flags but its heap capped (NODE_OPTIONS)`,
  open: async (setup) => {
    const mix = setup.scale === "smoke" ? SMOKE : FULL
    setup.progress(`generating the ${mix.fileProducts}-product file loads (cached in the OS temp dir)`)
    const files = await ensureInputs(mix.fileProducts)
    const database = databaseUrl()
    setup.note(
      `Rates: /v1/load-products ${mix.loadProductsPerSecond}/s (bodies of ${mix.bodySizes.join(", ")} products in turn, every ${mix.spoiledEvery}th with one product in twenty invalid); ` +
        `/v1/handle-json, /v1/handle-json-int and /v1/handle-csv one ${mix.fileProducts}-product load every ${mix.fileLoadEverySeconds} s each; ` +
        `POST /v1/delivery/capacity ${mix.quotesPerSecond}/s per variant (A; B all modes with origins searched; 5 items; autocannon --overallRate over ${mix.quoteConnections} connections); ` +
        `${mix.ordersPerSecond} capacity orders/s (each after its own variant A answer; every third applied order released; one in four ordering 3-5 units at a store on the first answer's day, so the store's 120 units run out and 409s follow). ` +
        `Loads are open-loop (sent when due, at most ${mix.maxInFlight} of a kind in flight; one not sent is counted).`
    )
    setup.note(`Limits set for the server under test so the soak measures service: ${Object.entries(LIMITS).map(([k, v]) => `${k}=${v}`).join(", ")}; every load is sent as a company of its own (its rows are counted apart in PostgreSQL).`)
    setup.note("Every 2xx answer is expected (409 too for consumptions): any other status, a load that does not finish, or a mismatch in the database fails the benchmark, with the figures of the run kept.")
    setup.note(`The server runs with NODE_OPTIONS=${process.env["BENCH_SERVER_NODE_OPTIONS"] ?? HEAP_CAP} (BENCH_SERVER_NODE_OPTIONS): with its heap capped as in a container, steady RSS growth means a leak, not V8 growing its heap into free memory.`)
    setup.note("The RSS slope is the least-squares line through the server's RSS from the end of warm-up to the end of traffic; a falling RSS is reported as 0 (the signed slope is in these notes).")
    if (database === undefined) setup.note("Database embedded: the server's embedded PostgreSQL server keeps its data in a temporary folder (DATA_DIR), which the end check opens after the server has stopped.")
    if (redisUrl() === undefined) setup.note("Queue in-process (REDIS_URL unset).")

    const run = async (): Promise<ReadonlyArray<Figure>> => {
      const seconds = setup.size
      const dataDir = mkdtempSync(join(tmpdir(), "retail-bench-soak-pg-"))
      const server = await startServer({
        RUN_WORKERS: "true",
        ...LIMITS,
        ...(process.env["BENCH_SERVER_NODE_OPTIONS"] === undefined ? { NODE_OPTIONS: HEAP_CAP } : {}),
        ...(database === undefined ? { DATA_DIR: dataDir } : {})
      }, setup.progress)
      let stopped = false
      const bodyFiles: Array<string> = []
      let sent: ReadonlyArray<SentLoad> = []
      try {
        const quotes = await capacityQuotes(server, mix.quotesPerSecond, mix.quoteConnections)
        bodyFiles.push(...quotes.bodyFiles)
        const orders = capacityOrders(server, mix.ordersPerSecond, mix.maxInFlight)
        const loads = loadTraffic(server, files, mix)
        sent = loads.sent

        setup.progress(`${seconds} s of mixed traffic`)
        const rss = sampleRss(server.rss, mix.rssEveryMs, setup.progress)
        server.rss.reset()
        const started = performance.now()
        const untilMs = started + seconds * 1000
        const [quoted] = await Promise.all([quotes.run(seconds), orders.run(untilMs), ...loads.kinds.map((k) => k.run(untilMs))])
        const trafficEnded = performance.now()
        const trafficSeconds = (trafficEnded - started) / 1000
        const peakMiB = server.rss.peakMiB()
        const endMiB = server.rss.currentMiB()
        const warmUp = warmUpSeconds(seconds)
        const slope = rss.slopePerMinute(warmUp, seconds)
        const startMiB = rss.at(warmUp)

        setup.progress(`traffic done; waiting for ${loads.sent.length} loads to finish`)
        const problems: Array<string> = [...loads.mismatches]
        const drainDeadline = performance.now() + Math.max(60, seconds) * 1000
        let lastFinished = trafficEnded
        for (const load of loads.sent) {
          const expected = load.invalid.size > 0 ? "COMPLETED_WITH_ERRORS" : "COMPLETED"
          const accepted = load.products.length - load.invalid.size
          const outcome = await waitFinal(server.url, load.processCode, load.token, Math.max(0, drainDeadline - performance.now()), 200).catch((error: unknown) => {
            problems.push(error instanceof Error ? error.message : String(error))
            return undefined
          })
          if (outcome === undefined) continue
          lastFinished = Math.max(lastFinished, outcome.at)
          const { status, totals } = outcome.state
          if (status !== expected || totals.persisted !== accepted || totals.accepted !== accepted) {
            problems.push(`${load.kind} load ${load.processCode} ended ${status} with ${JSON.stringify(totals)}; expected ${expected} with ${accepted} persisted`)
          }
        }
        const drainSeconds = (lastFinished - trafficEnded) / 1000
        const drainedMiB = server.rss.currentMiB()
        rss.stop()
        await server.stop()
        stopped = true

        const held = orders.held()
        setup.progress("checking the database")
        const verified = await verifyInDatabase(database, dataDir, loads.sent, {
          prefix: orders.orderPrefix,
          held,
          fromDay: orders.firstDay,
          toDay: daysAfter(orders.firstDay, 60)
        })
        problems.push(...verified.problems)
        const tallies = [...loads.kinds.map((k) => k.tally), ...quoted.map((q) => q.tally), ...orders.tallies]
        for (const tally of tallies) if (tally.firstUnexpected !== undefined) problems.push(`unexpected answer: ${tally.firstUnexpected}`)
        const accepted = loads.sent.reduce((sum, l) => sum + l.products.length - l.invalid.size, 0)
        setup.note(`Run: ${seconds} s of traffic (the last answers ${(trafficSeconds - seconds).toFixed(1)} s later; rates are per second of the ${seconds} s), RSS ${startMiB.toFixed(0)} MiB after ${warmUp} s warm-up, ${endMiB.toFixed(0)} MiB at the end, peak ${peakMiB.toFixed(0)} MiB, signed slope ${slope.toFixed(2)} MiB/min over ${rss.points().filter((p) => p.seconds >= warmUp && p.seconds <= seconds).length} samples; ${loads.sent.length} loads finished ${drainSeconds.toFixed(1)} s after the traffic.`)
        setup.progress(`${loads.sent.length} loads, ${accepted} products; RSS ${startMiB.toFixed(0)} -> ${endMiB.toFixed(0)} MiB (peak ${peakMiB.toFixed(0)}, slope ${slope.toFixed(2)} MiB/min); ${problems.length} problem(s)`)

        const figures: Array<Figure> = [
          ...loads.kinds.flatMap((k) => k.tally.figures(seconds)),
          ...quoted.flatMap((q) => q.tally.figures(seconds, q)),
          ...orders.tallies.flatMap((t) => t.figures(seconds)),
          figure("products accepted per second of traffic (all loads)", "products/s", accepted / seconds),
          figure("products persisted per second, first request to last load finished", "products/s", accepted / ((lastFinished - started) / 1000)),
          figure("seconds from the end of traffic to every load finished", "s", drainSeconds, { better: "lower" }),
          figure(`server RSS at start (after ${warmUp} s of warm-up)`, "MiB", startMiB, { better: "lower" }),
          figure("server RSS at the end of traffic", "MiB", endMiB, { better: "lower" }),
          figure("server peak RSS during traffic", "MiB", peakMiB, { better: "lower" }),
          figure("server RSS slope after warm-up, linear fit (0 when falling)", "MiB/min", Number.isNaN(slope) ? 0 : Math.max(0, slope), { better: "lower" }),
          figure("server RSS once every load finished", "MiB", drainedMiB, { better: "lower" }),
          figure("loads checked in the database", "loads", verified.loads),
          figure("products counted in the database (per load)", "products", verified.productsCounted),
          figure("products compared field by field with what was sent (sample)", "products", verified.productsCompared),
          figure("capacity usage rows checked (used <= total, used = ledger)", "rows", verified.capacityRows),
          figure("capacity orders held at the end (applied, not released)", "orders", verified.ordersHeld, { better: "lower" })
        ]
        if (problems.length > 0) {
          throw new BenchmarkFailure(`${problems.length} problem(s) after the soak: ${problems.slice(0, 5).join("; ")}${problems.length > 5 ? "; ..." : ""}`, figures)
        }
        return figures
      } finally {
        if (!stopped) await server.stop()
        // On a shared database, its products go once checked, so that later benchmarks write into tables as large as before.
        if (database !== undefined) {
          await forgetSentLoads(database, sent).catch((error: unknown) => setup.progress(`the soak's products could not be deleted: ${String(error)}`))
        }
        for (const file of [dataDir, ...bodyFiles]) rmSync(file, { recursive: true, force: true })
      }
    }
    return { run, close: async () => undefined }
  }
}
