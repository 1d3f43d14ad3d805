import {
  buildSnapshot,
  decodeNetwork,
  demoNetwork,
  ledgerFromUses,
  type NetworkDocument,
  type Snapshot
} from "@retail/capacity"
import { Result, Schema } from "effect"
import { writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { type Benchmark, BenchmarkFailure, figure, type Figure } from "../Benchmark.ts"
import { nationalNetwork, type StockRow, withStock } from "../national/NationalNetwork.ts"
import { nationalSkuRequestB } from "../national/NationalRequests.ts"
import { databaseUrl } from "../StoreUrls.ts"
import { autocannon, type LoadResult, WARM_UP_NOTE, warmUp } from "../support/Autocannon.ts"
import { type BareServer, startBareServer } from "../support/BareServer.ts"
import { answerVariantA, answerVariantB } from "../support/CapacityInProcess.ts"
import { post } from "../support/Http.ts"
import { cpuMicrosPerRequest, cpuOfDuring } from "../support/ProcessCpu.ts"
import { type ServerHandle, startServer, withServerLog } from "../support/ServerProcess.ts"
import { type StockChange, startStockFeeder } from "../support/StockFeeder.ts"
import { BENCH_CAPACITY_KEY } from "../support/Tokens.ts"
import { loadFigures, variantA, variantBAllModesSearch } from "./Capacity.ts"
import { gcMsOver, METRICS_ON_PUBLIC_PORT, planReusePercent, scrapeServer } from "./MetricsCheck.ts"

const CONNECTIONS = 64
const ITEMS = 5
const GOAL = "issue 25"
/** Rows per POST /v1/stock/changes (its largest batch). */
const STOCK_BATCH = 50_000
/** Stock deltas arriving while the national server is measured with them: 1,000 rows/s, as issue 25's goal. */
const DELTA_BATCH_ROWS = 100
const DELTA_EVERY_MS = 100
/** Batches unanswered at once, at most: a batch waits its turn behind 64 connections' requests, and the feed does not wait for it. */
const DELTA_IN_FLIGHT = 4
/** Of each delta batch, rows the measured requests read (their SKUs at the nodes holding them); the rest anywhere in the catalogue. */
const DELTA_READ_ROWS = 20

/** A collection now, so heap figures count what is live (flag set at run time: `npm run bench` is not started with --expose-gc). */
const collectGarbage: () => void = (() => {
  setFlagsFromString("--expose-gc")
  const gc: unknown = runInNewContext("gc")
  return typeof gc === "function" ? () => void gc() : () => undefined
})()

/** Heap in use after a collection, with memory outside the heap (typed arrays' buffers: compact structures live there). */
const heapUsedAfterGc = (): number => {
  collectGarbage()
  collectGarbage()
  const memory = process.memoryUsage()
  return memory.heapUsed + memory.external
}

/** CPU time (user + system, this process) per call, µs. */
const cpuMicrosPerCall = (calls: number, once: () => unknown): number => {
  const before = process.cpuUsage()
  for (let i = 0; i < calls; i++) once()
  const used = process.cpuUsage(before)
  return (used.user + used.system) / calls
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] ?? 0 : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}

const decodedOrFail = (what: string, input: unknown): NetworkDocument =>
  Result.match(decodeNetwork(input), {
    onFailure: (error) => {
      throw new BenchmarkFailure(`${what} does not pass the network validation: ${error.message.slice(0, 500)}`)
    },
    onSuccess: (document) => document
  })

interface EngineCase {
  readonly label: string
  readonly body: string
  readonly answer: (snapshot: Snapshot, body: string) => Uint8Array
  readonly wrongAnswer: (answer: string | Uint8Array, items: number) => string | undefined
  /** Measured on the demo network too (the goal's limit); national-only cases have no demo counterpart. */
  readonly onDemo: boolean
}

interface Networks {
  readonly demo: Snapshot
  readonly national: Snapshot
  readonly stockRows: number
}

const seconds = (since: number) => (performance.now() - since) / 1000

/** One load on a server: autocannon's figures, the server's CPU per request (undefined without /proc), its plans reused (%), and the figures of what ran beside it. */
interface Served {
  readonly result: LoadResult
  readonly cpuMicros: number | undefined
  readonly planReuse: number
  readonly beside: ReadonlyArray<Figure>
  /** Garbage collection over the load, ms by kind (nodejs_gc_duration_seconds_total: only with METRICS_GC=true, else 0). */
  readonly gcMs: { readonly major: number; readonly minor: number }
}

/** What runs beside a server's load: started just before it, stopped just after, with the figures it adds. */
interface Alongside {
  readonly start: () => { readonly stop: (label: string) => Promise<ReadonlyArray<Figure>> }
}

const RequestSkus = Schema.Struct({ items: Schema.Array(Schema.Struct({ skuCode: Schema.String })) })
const skusOf = (body: string): ReadonlyArray<string> => Schema.decodeUnknownSync(Schema.fromJsonString(RequestSkus))(body).items.map((item) => item.skuCode)

/**
 * Issue 25: the national network (benchmarks/src/national/) beside the demo network in the same
 * run: the engine's time per request in-process, the stock's bytes per row in the replica's
 * structures, then two servers (demo, national) under load at 64 connections beside a bare
 * node:http server, their RSS, and the start-up of a server whose database already holds the
 * national network.
 */
export const capacityNational: Benchmark = {
  name: "capacity-national",
  description: `The national network of benchmarks/src/national/ (10 CDs, 400 stores, 1,900 ubigeos in 60 zones; the size is its SKU count, stock at every CD and store) beside the demo network, same run: engine time per request in-process (variant A ${ITEMS} items; variant B all modes with origins searched, ${ITEMS} items, the capacity benchmark's bodies, and the same on SKUs of the national catalogue), bytes per stock row held, then a server per network at ${CONNECTIONS} connections (autocannon) beside a bare node:http server answering the same bytes, their RSS, and the start-up of a server on a database that holds the national network (with DATABASE_URL).`,
  sizeUnit: "SKUs in the national catalogue",
  defaultSize: 100_000,
  smokeSize: 300,
  defaultRuns: 1,
  open: async (setup) => {
    const smoke = setup.scale === "smoke"
    setup.progress(`generating the national network (${setup.size} SKUs)`)
    const national = nationalNetwork({ skus: setup.size })
    const heapBeforeRows = heapUsedAfterGc()
    const generated = performance.now()
    const rows: Array<StockRow> = [...national.stockRows()]
    const rowsBytes = (heapUsedAfterGc() - heapBeforeRows) / Math.max(1, rows.length)
    setup.progress(`${rows.length} stock rows in ${seconds(generated).toFixed(1)} s; ${JSON.stringify(national.shape)}`)
    setup.note(WARM_UP_NOTE)
    setup.note(`National network: ${JSON.stringify(national.shape)}, ${rows.length} stock rows (seed ${national.options.seed}).`)

    const structure = decodedOrFail("the national network (without stock)", national.network)
    const demoA = variantA()
    const demoB = variantBAllModesSearch()
    const cases: ReadonlyArray<EngineCase> = [
      { label: `variant A, ${ITEMS} items`, body: JSON.stringify(demoA.body(ITEMS)), answer: answerVariantA, wrongAnswer: demoA.wrongAnswer, onDemo: true },
      { label: `variant B all modes, origins searched, ${ITEMS} items`, body: JSON.stringify(demoB.body(ITEMS)), answer: answerVariantB, wrongAnswer: demoB.wrongAnswer, onDemo: true },
      {
        label: `variant B all modes, origins searched, ${ITEMS} items of the national catalogue`,
        body: JSON.stringify(nationalSkuRequestB(national.skuCodes, ITEMS)),
        answer: answerVariantB,
        wrongAnswer: demoB.wrongAnswer,
        onDemo: false
      }
    ]
    const searchBody = cases[1]?.body ?? ""
    // What the replica holds per stock row beyond the rows themselves: the national snapshot with its
    // stock and origin index, less the same network without stock (the rows are the document's, generated above).
    const heapBase = heapUsedAfterGc()
    const withoutStock = buildSnapshot({ ...structure, stock: [] }, ledgerFromUses([]))
    answerVariantB(withoutStock, searchBody)
    const heapWithoutStock = heapUsedAfterGc() - heapBase
    let built = performance.now()
    const networks: Networks = {
      demo: buildSnapshot(decodedOrFail("the demo network", demoNetwork), ledgerFromUses([])),
      national: buildSnapshot({ ...structure, stock: rows }, ledgerFromUses([])),
      stockRows: rows.length
    }
    const snapshotSeconds = seconds(built)
    // The first variant B request builds the snapshot's origin index (stock by node and SKU, holders).
    built = performance.now()
    for (const c of cases) {
      const wrong = c.wrongAnswer(c.answer(networks.national, c.body), ITEMS) ??
        (c.onDemo ? c.wrongAnswer(c.answer(networks.demo, c.body), ITEMS) : undefined)
      if (wrong !== undefined) throw new BenchmarkFailure(`${c.label}: not the expected answer in-process: ${wrong}`)
    }
    const firstAnswersSeconds = seconds(built)
    const heapWithStock = heapUsedAfterGc() - heapBase - heapWithoutStock
    answerVariantB(withoutStock, searchBody)
    const bytesPerRow = Math.max(0, heapWithStock - heapWithoutStock) / Math.max(1, rows.length)
    setup.progress(`snapshot ${snapshotSeconds.toFixed(1)} s, first answers (origin index) ${firstAnswersSeconds.toFixed(1)} s, ${bytesPerRow.toFixed(0)} bytes per stock row held (rows ${rowsBytes.toFixed(0)})`)

    // Servers: demo first, then the national network PUT into another server (with DATABASE_URL both
    // share one database, so never at once); the demo network is put back at the end.
    const headers = { "content-type": "application/json", authorization: `Bearer ${BENCH_CAPACITY_KEY}` }
    const serverSettings = {
      RUN_WORKERS: "false",
      REQUEST_MAX_BYTES: String(2 ** 30),
      REQUEST_MAX_VALUES: String(100_000_000),
      // The plan cache's counts are read from /metrics (capacity_plan_cache_total).
      ...METRICS_ON_PUBLIC_PORT,
      // Today's stock structures need more than npm start's 512 MB heap at national size (the figures say how much).
      NODE_OPTIONS: process.env["BENCH_NATIONAL_NODE_OPTIONS"] ?? "--max-old-space-size=4096"
    }
    const serverCases = cases.filter((c) => c.onDemo)
    const bodyFiles = serverCases.map((c, i) => {
      const file = join(tmpdir(), `retail-bench-national-${process.pid}-${i}.json`)
      writeFileSync(file, c.body)
      return file
    })
    setup.note(`The national network goes into its server as the document without stock, then its stock through the stock feed (POST /v1/stock/changes, ${STOCK_BATCH} rows a batch) where the server has one, else (404) the document again with the stock embedded; servers (demo and national alike) run with REQUEST_MAX_BYTES=${serverSettings.REQUEST_MAX_BYTES}, REQUEST_MAX_VALUES=${serverSettings.REQUEST_MAX_VALUES} and NODE_OPTIONS=${serverSettings.NODE_OPTIONS} (BENCH_NATIONAL_NODE_OPTIONS sets it).`)

    const putNetwork = async (server: ServerHandle, body: string, what: string) => {
      const answer = await fetch(`${server.url}/v1/network`, { method: "PUT", headers, body })
      const text = await answer.text()
      if (answer.status !== 200) throw new BenchmarkFailure(`PUT /v1/network (${what}) answered ${answer.status}: ${text.slice(0, 300)}; the server's last log lines: ${server.logTail()}`)
    }

    /** The national network into a server, its stock by the stock feed where there is one (see the note), and how long it took. */
    const loadNational = async (server: ServerHandle): Promise<ReadonlyArray<Figure>> => {
      const started = performance.now()
      await putNetwork(server, JSON.stringify(national.network), "national, without stock")
      // Sequence numbers above any earlier run's on the same database: a batch at or below a row's sequence is left alone.
      const sequenceBase = Date.now() * 1000
      for (let from = 0, batch = 0; from < rows.length; from += STOCK_BATCH, batch++) {
        const body = JSON.stringify({ sequence: sequenceBase + batch, changes: rows.slice(from, from + STOCK_BATCH) })
        const answer = await fetch(`${server.url}/v1/stock/changes`, { method: "POST", headers, body })
        const text = await answer.text()
        if (answer.status === 404 && from === 0) {
          const embedded = performance.now()
          await putNetwork(server, JSON.stringify(withStock(national.network, rows)), "national, stock embedded")
          return [figure("national network loaded: PUT /v1/network with the stock embedded (no stock feed): seconds to the answer", "s", seconds(embedded), { better: "lower" })]
        }
        if (answer.status !== 200) throw new BenchmarkFailure(`POST /v1/stock/changes answered ${answer.status}: ${text.slice(0, 300)}`)
      }
      const took = seconds(started)
      return [
        figure("national network loaded: PUT /v1/network without stock, then every row through POST /v1/stock/changes: seconds", "s", took, { better: "lower" }),
        figure("national network loaded: stock rows/s through POST /v1/stock/changes, one batch at a time", "rows/s", rows.length / took)
      ]
    }

    // Stock deltas at 1,000 rows/s into the national server while it is measured with them: rows the
    // requests read (their SKUs at the nodes holding them, units kept at or above the document's so
    // every item stays routed) and rows anywhere in the catalogue, as a feed would send them.
    const skusRead = new Set(serverCases.flatMap((c) => skusOf(c.body)))
    const readRows = rows.filter((row) => skusRead.has(row.sku) && row.units > 0)
    const deltaBatch = (b: number): ReadonlyArray<StockChange> => {
      const changes: Array<StockChange> = []
      for (let i = 0; i < Math.min(DELTA_READ_ROWS, readRows.length); i++) {
        const row = readRows[(b * DELTA_READ_ROWS + i) % readRows.length]!
        changes.push({ node: row.node, sku: row.sku, units: row.units + ((b + i) % 10) })
      }
      for (let i = 0; changes.length < DELTA_BATCH_ROWS; i++) {
        const row = rows[((b * DELTA_BATCH_ROWS + i) * 7919) % rows.length]!
        if (!skusRead.has(row.sku)) changes.push({ node: row.node, sku: row.sku, units: 1 + ((b * 31 + i * 17) % 400) })
      }
      return changes
    }
    let deltaBatches = 0
    let deltaSequence = 0
    const deltasInto = (server: ServerHandle): Alongside => ({
      start: () => {
        // Above the national load's sequences and any earlier run's on the same database (a row at a newer one is left alone).
        deltaSequence = Math.max(deltaSequence, Date.now() * 1000)
        const feeder = startStockFeeder({ baseUrl: server.url, everyMs: DELTA_EVERY_MS, batchOf: () => deltaBatch(deltaBatches++), nextSequence: () => ++deltaSequence, inFlight: DELTA_IN_FLIGHT })
        return {
          stop: async (label) => {
            const fed = await feeder.stop()
            return [figure(`${label}: stock rows/s applied meanwhile (POST /v1/stock/changes, ${DELTA_BATCH_ROWS} rows every ${DELTA_EVERY_MS} ms)`, "rows/s", fed.rowsApplied / fed.seconds)]
          }
        }
      }
    })
    setup.note(`The national server is measured again with stock deltas arriving ("stock deltas arriving" cases, after its RSS is taken): POST /v1/stock/changes, ${DELTA_BATCH_ROWS} rows every ${DELTA_EVERY_MS} ms from just before the load to its end, each sent when due unless ${DELTA_IN_FLIGHT} are unanswered (${DELTA_READ_ROWS} rows of each on the SKUs the requests read, ${readRows.length} rows in turn; the rest across the catalogue); its server CPU per request includes the feed's work. Each follows the same load without deltas on the same server, and its requests/s, p99, CPU per request and plans reused are also given beside that load's (the first national cases are not the baseline: they come right after the server took its stock). Plans reused: capacity_plan_cache_total over each load (METRICS_PUBLIC=true).`)

    const loadOf = (i: number) => ({
      connections: CONNECTIONS,
      seconds: setup.size >= 1000 ? 2 : 1,
      method: "POST" as const,
      headers,
      bodyFile: bodyFiles[i] ?? "",
      ...(smoke ? { amount: CONNECTIONS * 4 } : {})
    })

    /** One load of case i on the server (with what runs beside it): autocannon's figures, the server's CPU per request and its plans reused. */
    const serve = async (server: ServerHandle, label: string, i: number, alongside?: Alongside): Promise<Served> => {
      await warmUp({ ...loadOf(i), url: `${server.url}/v1/delivery/capacity` })
      const before = await scrapeServer(server)
      const running = alongside?.start()
      const served = await cpuOfDuring(server.pid, () => withServerLog(server, () => autocannon({ ...loadOf(i), url: `${server.url}/v1/delivery/capacity` })))
        .catch(async (error: unknown) => {
          await running?.stop(label).catch(() => undefined)
          throw error
        })
      const beside = (await running?.stop(label)) ?? []
      const after = await scrapeServer(server)
      return {
        result: served.result,
        cpuMicros: cpuMicrosPerRequest(served.cpuSeconds, served.result.requests),
        planReuse: planReusePercent(before, after),
        beside,
        gcMs: { major: gcMsOver(before, after, "major"), minor: gcMsOver(before, after, "minor") }
      }
    }

    /** Case i on the server, then on the bare server: the figures of every server case. */
    const loadOn = async (server: ServerHandle, bare: BareServer, label: string, i: number, alongside?: Alongside): Promise<{ readonly figures: Array<Figure>; readonly served: Served }> => {
      const served = await serve(server, label, i, alongside)
      await warmUp({ ...loadOf(i), url: `${bare.url}/case-${i}` })
      const bareServed = await cpuOfDuring(bare.pid, () => autocannon({ ...loadOf(i), url: `${bare.url}/case-${i}` }))
      const bareCpu = cpuMicrosPerRequest(bareServed.cpuSeconds, bareServed.result.requests)
      const bareName = "bare node:http, same answer, same run"
      const cpu = served.cpuMicros === undefined || bareCpu === undefined
        ? []
        : [figure(`${label}: server CPU per request (all threads, /proc)`, "µs", served.cpuMicros, { better: "lower", limit: { name: bareName, sample: bareCpu } })]
      return {
        served,
        figures: [
          ...loadFigures(label, served.result, bareServed.result, bareName)
            .map((f) => (f.goal === undefined ? f : { ...f, goal: { ...f.goal, ...(f.goal.on === "ratio" ? { atLeast: 0.5 } : {}), source: GOAL } })),
          figure(`${label}: max latency`, "ms", served.result.max, { better: "lower", limit: { name: bareName, sample: bareServed.result.max } }),
          ...cpu,
          ...served.beside
        ]
      }
    }

    /** The plans reused over a load, beside those of another load of the same case (or alone). */
    const planReuseFigure = (label: string, served: Served, other?: { readonly name: string; readonly served: Served }): Figure =>
      figure(`${label}: plans reused (capacity_plan_cache_total hits over plans asked during the load, /metrics)`, "%", served.planReuse,
        other === undefined ? {} : { limit: { name: other.name, sample: other.served.planReuse } })

    /**
     * Case i with deltas arriving, beside the same case without them just before on the same server
     * (warm, as the deltas case is: the first national loads come right after its stock was loaded).
     */
    const withDeltasOn = async (server: ServerHandle, bare: BareServer, label: string, i: number): Promise<ReadonlyArray<Figure>> => {
      const without = await serve(server, `${label}, without deltas`, i)
      const { figures, served } = await loadOn(server, bare, `${label}, stock deltas arriving`, i, deltasInto(server))
      const name = "the same load without deltas just before, same server"
      const against = (what: string, unit: string, value: (s: Served) => number | undefined, better: "higher" | "lower"): ReadonlyArray<Figure> => {
        const withValue = value(served)
        const withoutValue = value(without)
        return withValue === undefined || withoutValue === undefined
          ? []
          : [figure(`${label}, stock deltas arriving: ${what}, beside no deltas`, unit, withValue, { better, limit: { name, sample: withoutValue } })]
      }
      setup.progress(`${label}: with deltas ${served.result.requestsPerSecond.toFixed(0)} req/s, p99 ${served.result.p99} ms, CPU ${served.cpuMicros?.toFixed(0)} µs/request, plans reused ${served.planReuse.toFixed(1)}%, GC ${served.gcMs.major.toFixed(0)} ms major ${served.gcMs.minor.toFixed(0)} ms minor; without ${without.result.requestsPerSecond.toFixed(0)} req/s, p99 ${without.result.p99} ms, CPU ${without.cpuMicros?.toFixed(0)} µs, ${without.planReuse.toFixed(1)}%, GC ${without.gcMs.major.toFixed(0)} ms major ${without.gcMs.minor.toFixed(0)} ms minor (METRICS_GC=true counts it)`)
      return [
        ...figures,
        ...against("requests/s", "req/s", (s) => s.result.requestsPerSecond, "higher"),
        ...against("p99 latency", "ms", (s) => s.result.p99, "lower"),
        ...against("server CPU per request (all threads, /proc)", "µs", (s) => s.cpuMicros, "lower"),
        planReuseFigure(`${label}, stock deltas arriving`, served, { name, served: without })
      ]
    }

    const serveAndMeasure = async (which: "demo" | "national"): Promise<ReadonlyArray<Figure>> => {
      let server: ServerHandle | undefined
      let bare: BareServer | undefined
      const figures: Array<Figure> = []
      try {
        const started = performance.now()
        server = await startServer(serverSettings, setup.progress)
        if (which === "national") figures.push(...await loadNational(server))
        const answers: Record<string, string> = {}
        for (const [i, c] of serverCases.entries()) {
          const answer = await post(`${server.url}/v1/delivery/capacity`, c.body, headers)
          if (answer.status !== 200) throw new BenchmarkFailure(`${which}, ${c.label}: answered ${answer.status} ${answer.text.slice(0, 300)}`)
          const wrong = c.wrongAnswer(answer.text, ITEMS)
          if (wrong !== undefined) throw new BenchmarkFailure(`${which}, ${c.label}: not the expected answer from the server: ${wrong}`)
          answers[`/case-${i}`] = answer.text
        }
        if (which === "national") setup.progress(`national server answering ${seconds(started).toFixed(1)} s after its start`)
        bare = await startBareServer(answers)
        for (const [i, c] of serverCases.entries()) {
          const label = `${which} network, ${c.label}`
          const measured = await loadOn(server, bare, label, i)
          figures.push(...measured.figures, planReuseFigure(label, measured.served))
        }
        figures.push(figure(`${which} network: server RSS after the loads`, "MiB", server.rss.currentMiB(), {
          better: "lower",
          ...(which === "national" ? { goal: { on: "median" as const, atMost: 600, source: GOAL } } : {})
        }))
        if (which === "national") {
          // After the RSS figure, so that one stays comparable with earlier runs.
          const deltasStarted = performance.now()
          for (const [i, c] of serverCases.entries()) figures.push(...await withDeltasOn(server, bare, `national network, ${c.label}`, i))
          setup.progress(`the cases with deltas arriving took ${seconds(deltasStarted).toFixed(1)} s`)
        }
        if (which === "national" && databaseUrl() !== undefined) {
          // A replica starting on a database that holds the national network: spawn to its first answer.
          const restart = performance.now()
          const replica = await startServer(serverSettings, setup.progress)
          try {
            const answer = await post(`${replica.url}/v1/delivery/capacity`, serverCases[0]?.body ?? "", headers)
            if (answer.status !== 200) throw new BenchmarkFailure(`the restarted server answered ${answer.status}`)
            figures.push(figure("server start-up on the national network: spawn to its first answer", "s", seconds(restart), {
              better: "lower",
              goal: { on: "median", atMost: 10, source: GOAL }
            }))
            const searched = performance.now()
            const answerB = await post(`${replica.url}/v1/delivery/capacity`, serverCases[1]?.body ?? "", headers)
            if (answerB.status !== 200) throw new BenchmarkFailure(`the restarted server answered variant B ${answerB.status}`)
            figures.push(figure("national network: restarted server's first variant B answer with origins searched (its origin index built)", "s", seconds(searched), { better: "lower" }))
            figures.push(figure("national network: restarted server's RSS after its first answers", "MiB", replica.rss.currentMiB(), { better: "lower" }))
          } finally {
            await replica.stop()
          }
        }
        if (which === "national") {
          await putNetwork(server, JSON.stringify(demoNetwork), "the demo network back")
        }
      } finally {
        await bare?.stop()
        await server?.stop()
      }
      return figures
    }

    const rounds = smoke ? 1 : 7
    const calls = smoke ? 20 : 400
    const run = async (): Promise<ReadonlyArray<Figure>> => {
      const figures: Array<Figure> = [
        figure("national network: stock rows", "rows", networks.stockRows),
        figure("national network: snapshot build with its stock, in-process", "s", snapshotSeconds, { better: "lower" }),
        figure("national network: first answers in-process (the origin index is built)", "s", firstAnswersSeconds, { better: "lower" }),
        figure("national network: bytes per stock row, the rows as generated ({node, sku, units}, heap and external memory after GC)", "B", rowsBytes, { better: "lower" }),
        figure("national network: bytes per stock row held beyond the rows (snapshot stock and origin index, heap and external memory after GC)", "B", bytesPerRow, { better: "lower" })
      ]
      // Interleaved rounds, demo then national: the machine's other load falls on both alike.
      for (const c of cases) {
        for (let i = 0; i < (smoke ? 5 : 300); i++) {
          c.answer(networks.national, c.body)
          if (c.onDemo) c.answer(networks.demo, c.body)
        }
        const onDemo: Array<number> = []
        const onNational: Array<number> = []
        for (let round = 0; round < rounds; round++) {
          if (c.onDemo) onDemo.push(cpuMicrosPerCall(calls, () => c.answer(networks.demo, c.body)))
          onNational.push(cpuMicrosPerCall(calls, () => c.answer(networks.national, c.body)))
        }
        setup.progress(`${c.label}: engine ${median(onNational).toFixed(0)} µs national, ${c.onDemo ? median(onDemo).toFixed(0) : "-"} µs demo`)
        figures.push({
          name: `${c.label}: engine CPU time per request in-process (decode, evaluate, encode), national network`,
          unit: "µs",
          samples: [median(onNational)],
          better: "lower",
          ...(c.onDemo
            ? { limit: { name: "the demo network, same run", samples: [median(onDemo)] }, goal: { on: "ratio" as const, atMost: 2, source: GOAL } }
            : {})
        })
      }
      const measured = [...figures]
      try {
        figures.push(...await serveAndMeasure("demo"))
        figures.push(...await serveAndMeasure("national"))
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        throw new BenchmarkFailure(message, measured)
      }
      return figures
    }
    return { run, close: async () => undefined }
  }
}
