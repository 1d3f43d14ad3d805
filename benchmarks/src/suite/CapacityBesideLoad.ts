import { Scrape } from "@retail/testkit"
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ensureInputs } from "../../parsers/generate.ts"
import { type Benchmark, BenchmarkFailure, figure, type Figure, type Goal } from "../Benchmark.ts"
import { databaseUrl, redisUrl } from "../StoreUrls.ts"
import type { LoadResult } from "../support/Autocannon.ts"
import { acceptedLoad, waitCompleted } from "../support/Http.ts"
import { whileLoadPersists } from "../support/PersistingWindow.ts"
import { processCpuSeconds } from "../support/ProcessCpu.ts"
import { type ServerHandle, type ServerMode, startServer, stopEmbeddedPostmaster, withServerLog } from "../support/ServerProcess.ts"
import { mintToken, runTag } from "../support/Tokens.ts"
import { uploadFiles } from "../support/Upload.ts"
import { variantALoad } from "./VariantALoad.ts"

const CONNECTIONS = 64
const ITEMS = 5
const COMPLETION_TIMEOUT_MS = 30 * 60_000
/** Seconds of capacity load per measurement (idle, and while the load persists); smoke runs count requests instead. */
const CAPACITY_SECONDS = 5
const SMOKE_REQUESTS = CONNECTIONS * 4
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The two places the batch workers can run in one `npm start` process: what is measured, side by side. */
const LAYOUTS = [
  { name: "thread", label: "workers on their thread (default)", settings: {} },
  { name: "event-loop", label: "workers on the event loop (PERSIST_THREAD=false)", settings: { PERSIST_THREAD: "false" } }
] as const
type Layout = typeof LAYOUTS[number]

interface Target {
  readonly layout: Layout
  readonly server: ServerHandle
}

/** The server's event-loop delay over a window (monitorEventLoopDelay, beyond its 10 ms tick): p99 and max, in ms. */
interface LoopDelay {
  readonly p99: number
  readonly max: number
}

interface Measured {
  readonly idle: LoadResult
  readonly loaded: LoadResult
  readonly idleDelay: LoopDelay
  readonly loadedDelay: LoopDelay
  /** Of the capacity window under load, the share during which the load was still persisting (1: all of it). */
  readonly persistingShare: number
  /** Products/s from the load's first byte to COMPLETED. */
  readonly completedRate: number
  /** CPU seconds per second of the window under load: the event loop's thread alone, and every thread of the server. */
  readonly eventLoopCores: number
  readonly processCores: number
  /** The server's peak RSS from the load's first byte to COMPLETED. */
  readonly peakRssMiB: number
}

/** CPU time (user + system) the main thread of process `pid` (its event loop: the thread whose id is the pid) has used so far. */
const mainThreadCpuSeconds = (pid: number): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return undefined
  }
}

/**
 * The server's /metrics on its internal listener: nodejs_eventloop_delay_seconds covers the time since
 * the previous scrape, so a scrape before `measure` and one after give the delay over it alone.
 */
const withLoopDelay = async <A>(server: ServerHandle, measure: () => Promise<A>): Promise<{ readonly result: A; readonly delay: LoopDelay }> => {
  const internal = server.internalUrl()
  if (internal === undefined) throw new BenchmarkFailure("the server did not log its internal listener (for /metrics)")
  const scrape = async () => {
    const response = await fetch(`${internal}/metrics`)
    const text = await response.text()
    if (response.status !== 200) throw new BenchmarkFailure(`GET /metrics answered ${response.status}: ${text.slice(0, 300)}`)
    return new Scrape(text)
  }
  await scrape()
  const result = await measure()
  const after = await scrape()
  const ms = (quantile: string) => after.value("nodejs_eventloop_delay_seconds", { quantile }) * 1000
  return { result, delay: { p99: ms("0.99"), max: ms("1") } }
}

const realStores = (): { readonly databaseUrl: string; readonly redisUrl: string } | undefined => {
  const database = databaseUrl()
  const redis = redisUrl()
  return database !== undefined && redis !== undefined ? { databaseUrl: database, redisUrl: redis } : undefined
}

const configuration = (): string =>
  "Two `npm start` processes (the bundle and its Node flags, RUN_WORKERS and WORKERS at their defaults), " +
  (realStores() === undefined
    ? "each on npm start's embedded defaults (a fresh DATA_DIR each: the embedded PostgreSQL server, the queue in its tables; DATABASE_URL and REDIS_URL were not both set)"
    : "each with the runner's DATABASE_URL and REDIS_URL (own streams), every other server setting at its default") +
  ": one with the batch workers on their own thread (the default), one with PERSIST_THREAD=false (on the event loop, as before issue 22), measured in turn, the order alternating between runs"

export const capacityBesideLoad: Benchmark = {
  name: "capacity-beside-load",
  description:
    `POST /v1/delivery/capacity variant A, ${ITEMS} items, at ${CONNECTIONS} connections (autocannon), idle and then while a /v1/handle-json load persists in the same npm start process ` +
    "(started as the load's 200 arrives: its products are being persisted by the batch workers), with the workers on their own thread (the default) and on the event loop (PERSIST_THREAD=false); " +
    "issue 22's goal: p99 < 20 ms and max < 100 ms with a 200k-product load, on PostgreSQL and Redis.",
  sizeUnit: "products in the load",
  defaultSize: 200_000,
  smokeSize: 300,
  defaultRuns: 1,
  configuration,
  open: async (setup) => {
    setup.progress(`generating ${setup.size} products (cached in the OS temp dir)`)
    const files = await ensureInputs(setup.size)
    const real = realStores()
    if (real === undefined) setup.note("DATABASE_URL and REDIS_URL are not both set: the servers run on npm start's embedded defaults, not the PostgreSQL and Redis the goal names.")

    // As root the embedded server runs as `postgres`, which must pass through the folders above its data.
    const folder = mkdtempSync(join(tmpdir(), "retail-bench-beside-load-"))
    chmodSync(folder, 0o755)
    const { load, checkAndWarm } = variantALoad(folder, ITEMS, CONNECTIONS)
    const dataDirOf = (layout: Layout) => join(folder, `postgres-${layout.name}`)

    const targets: Array<Target> = []
    const close = async () => {
      for (const target of targets) await target.server.stop()
      if (real === undefined) {
        for (const layout of LAYOUTS) {
          // A server killed after its grace period leaves its PostgreSQL running: stop that too, then its data.
          stopEmbeddedPostmaster(dataDirOf(layout))
          for (let i = 0; i < 50 && existsSync(join(dataDirOf(layout), "postmaster.pid")); i++) await sleep(100)
        }
      }
      rmSync(folder, { recursive: true, force: true })
    }

    try {
      for (const layout of LAYOUTS) {
        const mode: ServerMode = real === undefined ? { kind: "npm-start", dataDir: dataDirOf(layout) } : { kind: "npm-start", real }
        const server = await startServer(layout.settings, setup.progress, mode)
        targets.push({ layout, server })
        const placed = /batch workers: [^\n"]*/.exec(server.logHead())?.[0]
        setup.note(`${layout.label}: the server logged "${placed ?? "(no line about the batch workers)"}".`)
        await checkAndWarm(server, setup.scale === "smoke" ? SMOKE_REQUESTS : CONNECTIONS * 50)
      }
    } catch (error) {
      await close()
      throw error
    }
    setup.note(
      `Each run, on each server in turn: ${CAPACITY_SECONDS} s of capacity load idle (smoke: ${SMOKE_REQUESTS} requests); then a load of the handle-json file (seed 42), ` +
        `the capacity load started as its 200 arrives (its batches are then being persisted) and the load's state polled every 100 ms meanwhile; the share of the window after the load had finished is a figure (above 0: the load was too small to cover it). ` +
        "The server's CPU over that window, its event loop's thread alone (/proc/<pid>/task/<pid>/stat) and all its threads, in cores; its event-loop delay over each window (nodejs_eventloop_delay_seconds of its /metrics, scraped before and after: monitorEventLoopDelay beyond its 10 ms tick). The capacity body was checked first (every item routed, none refused)."
    )

    const capacityAmount = setup.scale === "smoke" ? { amount: SMOKE_REQUESTS, seconds: CAPACITY_SECONDS } : { seconds: CAPACITY_SECONDS }

    const measure = async ({ layout, server }: Target): Promise<Measured> => {
      const { result: idle, delay: idleDelay } = await withLoopDelay(server, () => load(server, capacityAmount))
      const token = await mintToken(`BENCH-${runTag()}`)
      server.rss.reset()
      const sent = await withServerLog(server, () =>
        uploadFiles(`${server.url}/v1/handle-json`, token, [{ name: "productsJson", file: files.json, contentType: "application/json" }]))
      const processCode = acceptedLoad({ status: sent.status, text: sent.body }, "POST /v1/handle-json")

      const loopBefore = mainThreadCpuSeconds(server.pid)
      const processBefore = processCpuSeconds(server.pid)
      let loopAfter: number | undefined
      let processAfter: number | undefined
      const { measured: { result: loaded, delay: loadedDelay }, windowSeconds, persistingShare } = await whileLoadPersists(
        { baseUrl: server.url, processCode, token },
        async () => {
          const window = await withLoopDelay(server, () => load(server, capacityAmount))
          loopAfter = mainThreadCpuSeconds(server.pid)
          processAfter = processCpuSeconds(server.pid)
          return window
        },
        (window) => window.result
      )
      const completedAt = await waitCompleted(server.url, processCode, token, COMPLETION_TIMEOUT_MS)
      const cores = (before: number | undefined, after: number | undefined) =>
        before === undefined || after === undefined ? 0 : (after - before) / windowSeconds
      const measured: Measured = {
        idle,
        loaded,
        idleDelay,
        loadedDelay,
        persistingShare,
        completedRate: setup.size / ((completedAt - sent.startedAt) / 1000),
        eventLoopCores: cores(loopBefore, loopAfter),
        processCores: cores(processBefore, processAfter),
        peakRssMiB: server.rss.peakMiB()
      }
      setup.progress(
        `${layout.label}: idle p99 ${idle.p99} ms max ${idle.max} ms; while the load persists ${loaded.requestsPerSecond.toFixed(0)} req/s p99 ${loaded.p99} ms max ${loaded.max} ms ` +
          `(event-loop delay p99 ${loadedDelay.p99.toFixed(1)} ms max ${loadedDelay.max.toFixed(1)} ms, idle ${idleDelay.p99.toFixed(1)}/${idleDelay.max.toFixed(1)}; persisting ${(persistingShare * 100).toFixed(0)}% of the window; event loop ${measured.eventLoopCores.toFixed(2)} cores, process ${measured.processCores.toFixed(2)}); ` +
          `${measured.completedRate.toFixed(0)} products/s to COMPLETED`
      )
      return measured
    }

    const run = async (ctx: { readonly runIndex: number }): Promise<ReadonlyArray<Figure>> => {
      const ordered = ctx.runIndex % 2 === 0 ? targets : [...targets].reverse()
      const results = new Map<Layout["name"], Measured>()
      for (const target of ordered) results.set(target.layout.name, await measure(target))
      const p99Goal: Goal = { on: "median", below: 20, source: "issue 22: capacity p99 < 20 ms at 64 connections while a 200k-product load persists in the same npm start process" }
      const maxGoal: Goal = { on: "median", below: 100, source: "issue 22: capacity max < 100 ms at 64 connections while a 200k-product load persists in the same npm start process" }
      return LAYOUTS.flatMap((layout): ReadonlyArray<Figure> => {
        const m = results.get(layout.name)
        if (m === undefined) throw new BenchmarkFailure(`${layout.label} was not measured`)
        const goals = layout.name === "thread"
        const idle = (name: string) => `${layout.label}, idle: ${name}`
        const beside = (name: string, unit: string, sample: number, idleSample: number, goal: Goal | undefined, better: "higher" | "lower") =>
          figure(`${layout.label}, while a load persists: ${name}`, unit, sample, {
            better,
            limit: { name: idle(name), sample: idleSample },
            ...(goals && goal !== undefined ? { goal } : {})
          })
        return [
          beside("requests/s", "req/s", m.loaded.requestsPerSecond, m.idle.requestsPerSecond, undefined, "higher"),
          beside("p50 latency", "ms", m.loaded.p50, m.idle.p50, undefined, "lower"),
          beside("p99 latency", "ms", m.loaded.p99, m.idle.p99, p99Goal, "lower"),
          beside("max latency", "ms", m.loaded.max, m.idle.max, maxGoal, "lower"),
          beside("server's event-loop delay p99", "ms", m.loadedDelay.p99, m.idleDelay.p99, undefined, "lower"),
          beside("server's event-loop delay max", "ms", m.loadedDelay.max, m.idleDelay.max, undefined, "lower"),
          figure(`${layout.label}, while a load persists: event loop's CPU per capacity request`, "µs", (m.eventLoopCores * 1e6) / m.loaded.requestsPerSecond, { better: "lower" }),
          // Lower is better: 0 means the load persisted through the whole window, as the figures above need.
          figure(`${layout.label}: share of the window after the load had finished (0: it persisted throughout)`, "%", (1 - m.persistingShare) * 100, { better: "lower" }),
          figure(`${layout.label}: server CPU over the window, event loop's thread`, "cores", m.eventLoopCores, { better: "lower" }),
          figure(`${layout.label}: server CPU over the window, all threads`, "cores", m.processCores, { better: "lower" }),
          figure(`${layout.label}: products/s, first byte to COMPLETED`, "products/s", m.completedRate),
          figure(`${layout.label}: server peak RSS, first byte to COMPLETED`, "MiB", m.peakRssMiB, { better: "lower" })
        ]
      })
    }
    return { run, close }
  }
}
