import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ensureInputs } from "../../parsers/generate.ts"
import { type Benchmark, BenchmarkFailure, figure, type Figure, type Goal } from "../Benchmark.ts"
import { databaseUrl, redisUrl } from "../StoreUrls.ts"
import type { LoadResult } from "../support/Autocannon.ts"
import { processCpuSeconds } from "../support/ProcessCpu.ts"
import { acceptedLoad, waitCompleted } from "../support/Http.ts"
import { whileLoadPersists } from "../support/PersistingWindow.ts"
import { type ServerHandle, type ServerMode, startServer, stopEmbeddedPostmaster, withServerLog } from "../support/ServerProcess.ts"
import { mintToken, runTag } from "../support/Tokens.ts"
import { uploadFiles } from "../support/Upload.ts"
import { variantALoad } from "./VariantALoad.ts"

const CONNECTIONS = 64
const ITEMS = 5
const COMPLETION_TIMEOUT_MS = 30 * 60_000
/** Seconds of capacity load per measurement (idle, and while the load persists); smoke runs count requests instead. */
const CAPACITY_SECONDS = 2
const SMOKE_REQUESTS = CONNECTIONS * 4
const COMPARED = "PostgreSQL + Redis (DATABASE_URL, REDIS_URL), same figure, same run"
const GOAL_SOURCE = "embedded default: within 0.8x of PostgreSQL + Redis"

/** One configuration's measurements in one run. */
interface Measured {
  readonly intakeMBps: number
  readonly completedRate: number
  readonly idle: LoadResult
  readonly loaded: LoadResult
  /** Of the capacity window under load, the share during which the load was still persisting (1: all of it). */
  readonly persistingShare: number
  readonly completedRateUnderQuotes: number
  /** The service process's own (not its database's): peak RSS and CPU seconds from the first byte of the first load to COMPLETED. */
  readonly peakRssMiB: number
  readonly cpuSeconds: number
}

interface Target {
  readonly name: "embedded" | "real"
  readonly server: ServerHandle
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The configuration line the report shows for this benchmark. */
const configuration = (): string => {
  const compared = databaseUrl() !== undefined && redisUrl() !== undefined
  return "npm start with nothing set (the bundle and Node flags; a fresh DATA_DIR in the OS temp dir: " +
    "the embedded PostgreSQL server, as ./.data/postgres; no REDIS_URL: the default queue; RUN_WORKERS and WORKERS at their defaults; " +
    "DATABASE_URL and REDIS_URL removed from its environment); " +
    (compared
      ? "beside each, the same figure from a server with the runner's DATABASE_URL and REDIS_URL (own streams), otherwise the same defaults, one process"
      : "no comparison: DATABASE_URL and REDIS_URL were not both set")
}

/** The server's own start-up line naming its database and queue (services/server Infrastructure.ts). */
const chosen = (server: ServerHandle): string | undefined => {
  const line = /database: ([^\n"]*?); queue: ([^\n"]*)/.exec(server.logHead())
  return line === null ? undefined : `database: ${line[1] ?? ""}; queue: ${line[2] ?? ""}`
}

export const embedded: Benchmark = {
  name: "embedded",
  description:
    "What `npm start` serves on its embedded defaults, beside PostgreSQL + Redis in the same run: a /v1/handle-json load (the handle-json file, seed 42) from its first byte to the 200 (intake MB/s) and to COMPLETED (products/s), RUN_WORKERS on; " +
    `POST /v1/delivery/capacity variant A, ${ITEMS} items, at ${CONNECTIONS} connections (autocannon) idle, then right after the 200 of a second load of the same size, while its products persist.`,
  sizeUnit: "products in each load",
  defaultSize: 20_000,
  smokeSize: 200,
  configuration,
  open: async (setup) => {
    setup.progress(`generating ${setup.size} products (cached in the OS temp dir)`)
    const files = await ensureInputs(setup.size)
    const database = databaseUrl()
    const redis = redisUrl()
    const real = database !== undefined && redis !== undefined ? { databaseUrl: database, redisUrl: redis } : undefined
    if (real === undefined) {
      setup.note("No comparison (DATABASE_URL and REDIS_URL not both set): the embedded figures stand alone, and the 0.8x goals are not checked.")
    }

    // As root the embedded server runs as `postgres`, which must pass through the folders above its data.
    const folder = mkdtempSync(join(tmpdir(), "retail-bench-embedded-"))
    chmodSync(folder, 0o755)
    const dataDir = join(folder, "postgres")
    const { load, checkAndWarm } = variantALoad(folder, ITEMS, CONNECTIONS)

    const targets: Array<Target> = []
    const close = async () => {
      for (const target of targets) await target.server.stop()
      // A server killed after its grace period leaves its PostgreSQL running: stop that too, then its data.
      stopEmbeddedPostmaster(dataDir)
      for (let i = 0; i < 50 && existsSync(join(dataDir, "postmaster.pid")); i++) await sleep(100)
      rmSync(folder, { recursive: true, force: true })
    }
    const start = async (name: Target["name"], mode: ServerMode) => {
      const began = performance.now()
      const server = await startServer({}, setup.progress, mode)
      targets.push({ name, server })
      const seconds = (performance.now() - began) / 1000
      const said = chosen(server)
      if (name === "embedded" && said?.includes("embedded PostgreSQL server") !== true) {
        throw new BenchmarkFailure(`the npm start server did not run the embedded PostgreSQL server (${said ?? "no infrastructure line logged"})`)
      }
      setup.note(`${name === "embedded" ? "npm start defaults" : "Compared server"}: ${said ?? "(no infrastructure line logged)"}; listening ${seconds.toFixed(1)} s after it was spawned${name === "embedded" ? " (initdb of a fresh data folder, PostgreSQL started, migrations)" : ""}.`)
      return server
    }

    try {
      await start("embedded", { kind: "npm-start", dataDir })
      if (real !== undefined) await start("real", { kind: "npm-start", real })
      for (const { server } of targets) {
        await checkAndWarm(server, setup.scale === "smoke" ? SMOKE_REQUESTS : CONNECTIONS * 50)
      }
    } catch (error) {
      await close()
      throw error
    }
    setup.note(
      `Each run, on each server (order alternating between runs): ${CAPACITY_SECONDS} s of capacity load idle (smoke: ${SMOKE_REQUESTS} requests); a load timed to its 200 and to COMPLETED, polling every 50 ms; ` +
        "a second load of the same file, the capacity load started as its 200 arrives and the load's state polled every 100 ms meanwhile (the share of the window after the load had finished is a figure: above 0 the load was too small to cover it; give --size). " +
        "One server of each kind for the whole benchmark (its database keeps the earlier runs' rows, each load a company of its own); the capacity body was checked first (every item routed, none refused)."
    )

    const capacityAmount = setup.scale === "smoke" ? { amount: SMOKE_REQUESTS, seconds: CAPACITY_SECONDS } : { seconds: CAPACITY_SECONDS }

    const upload = async (server: ServerHandle) => {
      const token = await mintToken(`BENCH-${runTag()}`)
      const sent = await uploadFiles(`${server.url}/v1/handle-json`, token, [{ name: "productsJson", file: files.json, contentType: "application/json" }])
      const processCode = acceptedLoad({ status: sent.status, text: sent.body }, "POST /v1/handle-json")
      return { sent, processCode, token }
    }

    const measure = async (target: Target): Promise<Measured> => {
      const { server } = target
      const idle = await load(server, capacityAmount)

      server.rss.reset()
      const cpuBefore = processCpuSeconds(server.pid) ?? 0
      const first = await withServerLog(server, () => upload(server))
      const completedAt = await waitCompleted(server.url, first.processCode, first.token, COMPLETION_TIMEOUT_MS)
      const cpuSeconds = (processCpuSeconds(server.pid) ?? 0) - cpuBefore
      const peakRssMiB = server.rss.peakMiB()
      const intakeMBps = first.sent.bytes / 1e6 / first.sent.seconds
      const completedRate = setup.size / ((completedAt - first.sent.startedAt) / 1000)

      const second = await withServerLog(server, () => upload(server))
      const { measured: loaded, persistingShare } = await whileLoadPersists(
        { baseUrl: server.url, processCode: second.processCode, token: second.token },
        () => load(server, capacityAmount),
        (result) => result
      )
      const completedUnderQuotesAt = await waitCompleted(server.url, second.processCode, second.token, COMPLETION_TIMEOUT_MS)
      const completedRateUnderQuotes = setup.size / ((completedUnderQuotesAt - second.sent.startedAt) / 1000)
      setup.progress(
        `${target.name}: intake ${intakeMBps.toFixed(1)} MB/s, ${completedRate.toFixed(0)} products/s to COMPLETED; capacity idle ${idle.requestsPerSecond.toFixed(0)} req/s p99 ${idle.p99} ms, ` +
          `under load ${loaded.requestsPerSecond.toFixed(0)} req/s p99 ${loaded.p99} ms max ${loaded.max} ms (load persisting ${(persistingShare * 100).toFixed(0)}% of the window); ` +
          `service process: peak RSS ${peakRssMiB.toFixed(0)} MiB, ${cpuSeconds.toFixed(1)} CPU-s for the first load`
      )
      return { intakeMBps, completedRate, idle, loaded, persistingShare, completedRateUnderQuotes, peakRssMiB, cpuSeconds }
    }

    const run = async (ctx: { readonly runIndex: number }): Promise<ReadonlyArray<Figure>> => {
      const ordered = ctx.runIndex % 2 === 0 ? targets : [...targets].reverse()
      const results = new Map<Target["name"], Measured>()
      for (const target of ordered) results.set(target.name, await measure(target))
      const mine = results.get("embedded")
      if (mine === undefined) throw new BenchmarkFailure("the embedded server was not measured")
      const theirs = results.get("real")
      const ratioGoal: Goal | undefined = theirs === undefined ? undefined : { on: "ratio", atLeast: 0.8, source: GOAL_SOURCE }
      const beside = (
        name: string,
        unit: string,
        pick: (m: Measured) => number,
        options: { readonly better?: "higher" | "lower"; readonly goal?: Goal | undefined } = {}
      ): Figure =>
        figure(name, unit, pick(mine), {
          ...(options.better === undefined ? {} : { better: options.better }),
          ...(theirs === undefined ? {} : { limit: { name: COMPARED, sample: pick(theirs) } }),
          ...(options.goal === undefined ? {} : { goal: options.goal })
        })
      const capacityFigures = (label: string, pick: (m: Measured) => LoadResult, p99Goal: Goal | undefined): ReadonlyArray<Figure> => [
        beside(`capacity ${label}: requests/s`, "req/s", (m) => pick(m).requestsPerSecond),
        beside(`capacity ${label}: p50 latency`, "ms", (m) => pick(m).p50, { better: "lower" }),
        beside(`capacity ${label}: p99 latency`, "ms", (m) => pick(m).p99, { better: "lower", goal: p99Goal }),
        beside(`capacity ${label}: max latency`, "ms", (m) => pick(m).max, { better: "lower" })
      ]
      return [
        beside("handle-json intake MB/s, first byte to the 200", "MB/s", (m) => m.intakeMBps, { goal: ratioGoal }),
        beside("handle-json products/s, first byte to COMPLETED", "products/s", (m) => m.completedRate, { goal: ratioGoal }),
        ...capacityFigures(`variant A ${ITEMS} items, ${CONNECTIONS} connections, idle`, (m) => m.idle, undefined),
        ...capacityFigures(
          `variant A ${ITEMS} items, ${CONNECTIONS} connections, while a load persists`,
          (m) => m.loaded,
          { on: "median", below: 20, source: "embedded default: p99 < 20 ms at 64 connections while a load persists" }
        ),
        // Lower is better: 0 means the load persisted through the whole window, as the figure above needs.
        beside("share of that capacity window after the load had finished (0: it persisted throughout)", "%", (m) => (1 - m.persistingShare) * 100, { better: "lower" }),
        beside("products/s first byte to COMPLETED of that load (capacity load meanwhile)", "products/s", (m) => m.completedRateUnderQuotes),
        beside("service process peak RSS, first byte to COMPLETED (its database's processes not counted)", "MiB", (m) => m.peakRssMiB, { better: "lower" }),
        beside("service process CPU per 1000 products, first byte to COMPLETED (all threads; its database's not counted)", "CPU-ms", (m) => (m.cpuSeconds * 1e6) / setup.size, { better: "lower" })
      ]
    }
    return { run, close }
  }
}
