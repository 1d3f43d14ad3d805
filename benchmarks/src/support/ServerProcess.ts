import { spawn } from "node:child_process"
import { once } from "node:events"
import { readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { buildServer, csvJoinWorkerFile, jsonValidationThreadFile, persistThreadFile } from "../../../scripts/buildServer.ts"
import { flagsNotIn, serverNodeFlags } from "../../../scripts/serverNodeFlags.ts"
import { BenchmarkFailure } from "../Benchmark.ts"
import { databaseUrl, redisUrl } from "../StoreUrls.ts"
import { deleteKeys } from "./Redis.ts"
import { watchRss } from "./Rss.ts"
import { BENCH_CAPACITY_KEY, BENCH_JWT_SECRET, runTag } from "./Tokens.ts"

const repositoryRoot = fileURLToPath(new URL("../../../", import.meta.url))
const SERVER_MAIN = join(repositoryRoot, "services", "server", "src", "main.ts")
const LISTENING = /Listening on http:\/\/([^\s/]+):(\d+)/
const INTERNAL = /Internal endpoints[^\n]* on http:\/\/([^\s/"]+):(\d+)/
const START_TIMEOUT_MS = 180_000

/**
 * What a server under test runs: the production bundle (`npm start`'s esbuild build, with its Node.js
 * flags, so peak RSS is production memory) unless BENCH_SERVER_RUNTIME=tsx asks for the TypeScript sources under tsx
 * (about 100 MB more RSS: tsx's loader thread). The bundle is built once per process into its own
 * file under dist/ (concurrent runs never overwrite each other's), removed when the process exits.
 */
export const serverRuntime = (): "bundle" | "tsx" => (process.env["BENCH_SERVER_RUNTIME"] === "tsx" ? "tsx" : "bundle")

let bundle: Promise<string> | undefined
/** `npm start`'s Node.js flags (its V8 heap sizes) and a role's (scripts/clusterPlan.ts) but those `overrides` (the server's NODE_OPTIONS and BENCH_SERVER_NODE_ARGS) set, then what to run. */
const serverArgs = async (overrides: string, runtime: "bundle" | "tsx", roleFlags: ReadonlyArray<string>): Promise<ReadonlyArray<string>> => {
  const startFlags = [...flagsNotIn(serverNodeFlags(), overrides), ...flagsNotIn(roleFlags, overrides)]
  if (runtime === "tsx") return [...startFlags, "--import", "tsx", SERVER_MAIN]
  bundle ??= buildServer(join("dist", "bench", `server-${process.pid}.mjs`)).then((file) => {
    process.on("exit", () => {
      rmSync(file, { force: true })
      rmSync(`${file}.map`, { force: true })
      rmSync(csvJoinWorkerFile(file), { force: true })
      rmSync(`${csvJoinWorkerFile(file)}.map`, { force: true })
      rmSync(jsonValidationThreadFile(file), { force: true })
      rmSync(`${jsonValidationThreadFile(file)}.map`, { force: true })
      rmSync(persistThreadFile(file), { force: true })
      rmSync(`${persistThreadFile(file)}.map`, { force: true })
    })
    return file
  }, (error: unknown) => {
    bundle = undefined
    throw new BenchmarkFailure(`the server bundle could not be built: ${error instanceof Error ? error.message : String(error)}`)
  })
  return [...startFlags, await bundle]
}

const started = new Set<{ readonly kill: (signal: NodeJS.Signals) => unknown }>()

/**
 * Every setting of the server (README.md, Configuration), which a server started as `npm start`
 * with nothing set must not inherit from the runner's environment. NODE_OPTIONS too: npm start's
 * own flags alone.
 */
export const SERVER_SETTINGS: ReadonlyArray<string> = [
  "PORT", "HOST", "INTERNAL_PORT", "INTERNAL_HOST", "DATABASE_URL", "DATA_DIR", "DATABASE_POOL_SIZE", "REDIS_URL", "QUEUE",
  "PRODUCT_MAX_VALUES", "UPLOAD_IDLE_TIMEOUT_MS", "UPLOAD_MIN_BYTES_PER_SECOND", "INTERNAL_FILE_LOADS_PER_COMPANY",
  "ALLOW_VOLATILE_QUEUE", "LOAD_LEASE_MS", "LOAD_RECONCILE_INTERVAL_MS", "LOAD_RETENTION_DAYS", "CAPACITY_RETENTION_DAYS", "QUEUE_DRAIN_TIMEOUT_MS", "REDIS_PUBLISH_TIMEOUT_MS",
  "SHUTDOWN_GRACE_MS", "RUN_WORKERS", "PERSIST_THREAD", "PERSIST_THREAD_NICE", "PERSIST_YIELD_LAG_MS", "PERSIST_YIELD_MAX_MS", "WORKERS", "PRODUCT_BATCH_SIZE", "BATCH_ENTRY_FORMAT", "CLAIM_IDLE_MS", "PERSIST_TIMEOUT_MS", "MAX_DELIVERIES", "DEAD_LETTER_MAX_ENTRIES",
  "LOAD_PRODUCTS_MAX_BYTES", "LOAD_PRODUCTS_MAX_VALUES", "FILE_MAX_BYTES", "JSON_VALIDATION_THREADS", "SPOOL_DIR",
  "PRODUCT_CODES_IN_MEMORY", "CSV_JOIN_THREADS", "CSV_JOIN_THREAD_HEAP_MB", "REQUEST_MAX_BYTES", "REQUEST_MAX_VALUES",
  "CAPACITY_MAX_BODY_BYTES", "MULTIPART_MAX_PARTS", "MULTIPART_MAX_FIELD_BYTES", "TOKEN_RATE_LIMIT_PER_SECOND",
  "TOKEN_RATE_LIMIT_BURST", "API_KEY_RATE_LIMIT_PER_SECOND", "API_KEY_RATE_LIMIT_BURST", "FILE_LOADS_PER_COMPANY",
  "FILE_LOAD_RETRY_AFTER_SECONDS", "RESPONSE_ERRORS_CAP", "PRODUCT_BATCHES_STREAM", "PRODUCT_CONSUMER_GROUP",
  "LOAD_EVENTS_STREAM", "CONSUMER_NAME", "JWT_SECRET", "JWT_PUBLIC_KEY", "JWT_ALGORITHM", "JWKS_URL", "JWT_ISSUER",
  "JWT_AUDIENCE", "NODE_ENV", "CAPACITY_API_KEYS", "CAPACITY_HORIZON_DAYS", "DELIVERY_DATES_COUNT",
  "CAPACITY_EVENTS_STREAM", "CAPACITY_STOCK_STREAM", "CAPACITY_RECONCILE_INTERVAL_MS", "METRICS_ENABLED", "METRICS_PUBLIC", "METRICS_GC", "OPENAPI_SERVERS",
  "LOG_FORMAT", "LOG_LEVEL", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_TRACES_SAMPLER",
  "OTEL_TRACES_SAMPLER_ARG", "OTEL_SERVICE_NAME", "OTEL_EXPORTER_OTLP_HEADERS", "NODE_OPTIONS"
]

/**
 * How a server under test is configured. "suite" (the default): the runner's infrastructure
 * (DATABASE_URL and REDIS_URL when set, else an in-memory PGlite and the in-process queue), the
 * runner's environment passed on, BENCH_SERVER_RUNTIME and BENCH_SERVER_NODE_OPTIONS applied.
 * "npm-start": what `npm start` serves with nothing set: the bundle with npm start's flags alone,
 * every server setting of the runner's environment left out, DATA_DIR as given (the embedded
 * PostgreSQL server) or, with `real`, the runner's DATABASE_URL and REDIS_URL (own streams).
 */
export type ServerMode =
  | { readonly kind: "suite" }
  | { readonly kind: "npm-start"; readonly dataDir: string }
  | { readonly kind: "npm-start"; readonly real: { readonly databaseUrl: string; readonly redisUrl: string } }

/** The postmaster of an embedded PostgreSQL server in `dataDir`, if it is running (its pid file). */
const postmasterPid = (dataDir: string): number | undefined => {
  try {
    const pid = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0])
    return Number.isInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

/** SIGQUIT: PostgreSQL's immediate shutdown, for a server whose service process was killed (it would outlive it). */
export const stopEmbeddedPostmaster = (dataDir: string): void => {
  const pid = postmasterPid(dataDir)
  if (pid === undefined) return
  try {
    process.kill(pid, "SIGQUIT")
  } catch {
    // gone already
  }
}

/** Stops every server this process started and has not stopped yet (on Ctrl-C, for instance). */
export const killStartedServers = (): void => {
  for (const child of started) child.kill("SIGKILL")
}

export interface ServerHandle {
  readonly url: string
  /** The internal listener (/v1/handle-json-int), once the server has logged it. */
  readonly internalUrl: () => string | undefined
  readonly pid: number
  readonly rss: ReturnType<typeof watchRss>
  /** The end of what the server logged, for failure messages. */
  readonly logTail: () => string
  /** The beginning of what the server logged (its start-up lines: which database and queue it chose). */
  readonly logHead: () => string
  /** With Redis, deletes the batches published so far (nobody consumes them when RUN_WORKERS=false). */
  readonly dropPublished: () => Promise<void>
  readonly stop: () => Promise<void>
}

/** Adds the server's last log lines to a failure while it was under load. */
export const withServerLog = async <A>(server: ServerHandle, measure: () => Promise<A>): Promise<A> => {
  try {
    return await measure()
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    throw new BenchmarkFailure(`${message}; the server's last log lines: ${server.logTail()}`)
  }
}

/**
 * The server (the bundle or tsx, see `serverRuntime`) in its own process (own event loop, own RSS) on a free
 * port, with the run's own streams and the same infrastructure as the runner (DATABASE_URL and
 * REDIS_URL when set, embedded in memory otherwise). Resolves once it logs its address.
 */
export const startServer = async (
  settings: Readonly<Record<string, string>>,
  progress: (m: string) => void,
  mode: ServerMode = { kind: "suite" },
  roleFlags: ReadonlyArray<string> = []
): Promise<ServerHandle> => {
  const tag = runTag()
  const streams = {
    PRODUCT_BATCHES_STREAM: `bench:${tag}:products:batches`,
    LOAD_EVENTS_STREAM: `bench:${tag}:product-loads:events`,
    CAPACITY_EVENTS_STREAM: `bench:${tag}:capacity:events`
  }
  const inherited = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined))
  const access = { HOST: "127.0.0.1", PORT: "0", INTERNAL_PORT: "0", JWT_SECRET: BENCH_JWT_SECRET, CAPACITY_API_KEYS: BENCH_CAPACITY_KEY }
  const database = mode.kind === "suite" ? databaseUrl() : "real" in mode ? mode.real.databaseUrl : undefined
  const redis = mode.kind === "suite" ? redisUrl() : "real" in mode ? mode.real.redisUrl : undefined
  const env: Record<string, string> = mode.kind === "suite"
    ? {
      ...inherited,
      ...access,
      CONSUMER_NAME: `bench-${tag}`,
      SPOOL_DIR: tmpdir(),
      ...(database === undefined ? { DATA_DIR: "memory://" } : {}),
      // Node options for the servers alone (a heap cap tells a leak from a heap V8 lets grow).
      ...(process.env["BENCH_SERVER_NODE_OPTIONS"] === undefined ? {} : { NODE_OPTIONS: process.env["BENCH_SERVER_NODE_OPTIONS"] }),
      ...streams,
      ...settings
    }
    : {
      ...Object.fromEntries(Object.entries(inherited).filter(([name]) => !SERVER_SETTINGS.includes(name))),
      ...access,
      ...("real" in mode
        ? { DATABASE_URL: mode.real.databaseUrl, REDIS_URL: mode.real.redisUrl, CONSUMER_NAME: `bench-${tag}`, ...streams }
        : { DATA_DIR: mode.dataDir }),
      ...settings
    }
  // Node flags NODE_OPTIONS refuses, for the servers alone: `--cpu-prof --cpu-prof-dir=DIR` profiles them.
  const nodeArgs = process.env["BENCH_SERVER_NODE_ARGS"]?.split(" ").filter((arg) => arg !== "") ?? []
  const runtime = mode.kind === "suite" ? serverRuntime() : "bundle"
  const args = [...nodeArgs, ...(await serverArgs(`${env["NODE_OPTIONS"] ?? ""} ${nodeArgs.join(" ")}`, runtime, roleFlags))]
  const child = spawn(process.execPath, args, { cwd: repositoryRoot, env, stdio: ["ignore", "pipe", "pipe"] })
  let tail = ""
  let head = ""
  const keep = (chunk: string) => {
    tail = (tail + chunk).slice(-3000)
    if (head.length < 6000) head += chunk
  }
  child.stderr.setEncoding("utf8").on("data", keep)
  // An embedded PostgreSQL server outlives a service process that is killed: stop it as well.
  const embeddedData = mode.kind === "npm-start" && "dataDir" in mode ? mode.dataDir : undefined
  const entry = {
    kill: (signal: NodeJS.Signals) => {
      child.kill(signal)
      if (embeddedData !== undefined) stopEmbeddedPostmaster(embeddedData)
    }
  }
  started.add(entry)
  child.on("exit", () => started.delete(entry))
  const pid = child.pid
  if (pid === undefined) throw new BenchmarkFailure(`the server could not be started (${args.join(" ")})`)
  const exited = once(child, "exit")

  let listening = false
  let internalUrl: string | undefined
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new BenchmarkFailure(`the server did not log its address within ${START_TIMEOUT_MS / 1000} s: ${tail}`)), START_TIMEOUT_MS)
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      keep(chunk)
      const internal = internalUrl === undefined ? INTERNAL.exec(tail) : null
      if (internal !== null) internalUrl = `http://${internal[1] ?? "127.0.0.1"}:${internal[2] ?? "0"}`
      const match = LISTENING.exec(tail)
      if (match !== null && !listening) {
        listening = true
        clearTimeout(timer)
        resolve(`http://${match[1] ?? "127.0.0.1"}:${match[2] ?? "0"}`)
      }
    })
    child.on("exit", (code, signal) => {
      clearTimeout(timer)
      reject(new BenchmarkFailure(`the server exited with ${signal ?? `code ${String(code)}`} before listening: ${tail.trim().split("\n").slice(-6).join(" / ")}`))
    })
  })
  progress(`server pid ${pid} listening on ${url}`)
  const rss = watchRss(pid)

  const stop = async () => {
    rss.stop()
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM")
      const killer = setTimeout(() => child.kill("SIGKILL"), 20_000)
      await exited
      clearTimeout(killer)
    }
    if (redis !== undefined) {
      const batches = streams.PRODUCT_BATCHES_STREAM
      await deleteKeys(redis, [batches, `${batches}:dead`, streams.LOAD_EVENTS_STREAM, streams.CAPACITY_EVENTS_STREAM]).catch(() => undefined)
    }
  }
  const dropPublished = async () => {
    if (redis !== undefined) await deleteKeys(redis, [streams.PRODUCT_BATCHES_STREAM])
  }
  const logTail = () => {
    const lines = tail.trim().split("\n")
    const telling = lines.filter((line) => /ERROR|WARN|message:/.test(line))
    return (telling.length > 0 ? telling : lines).slice(-6).map((line) => line.trim().slice(0, 400)).join(" / ")
  }
  return { url, internalUrl: () => internalUrl, pid, rss, logTail, logHead: () => head, dropPublished, stop }
}
