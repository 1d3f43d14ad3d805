import { spawn } from "node:child_process"
import { once } from "node:events"
import { rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { buildServer, csvJoinWorkerFile, jsonValidationThreadFile } from "../../../scripts/buildServer.ts"
import { flagsNotIn, serverNodeFlags } from "../../../scripts/serverNodeFlags.ts"
import { BenchmarkFailure } from "../Benchmark.ts"
import { databaseUrl, redisUrl } from "../Machine.ts"
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
/** `npm start`'s Node.js flags (its V8 heap sizes) but those `overrides` (the server's NODE_OPTIONS and BENCH_SERVER_NODE_ARGS) set, then what to run. */
const serverArgs = async (overrides: string): Promise<ReadonlyArray<string>> => {
  const startFlags = flagsNotIn(serverNodeFlags(), overrides)
  if (serverRuntime() === "tsx") return [...startFlags, "--import", "tsx", SERVER_MAIN]
  bundle ??= buildServer(join("dist", "bench", `server-${process.pid}.mjs`)).then((file) => {
    process.on("exit", () => {
      rmSync(file, { force: true })
      rmSync(`${file}.map`, { force: true })
      rmSync(csvJoinWorkerFile(file), { force: true })
      rmSync(`${csvJoinWorkerFile(file)}.map`, { force: true })
      rmSync(jsonValidationThreadFile(file), { force: true })
      rmSync(`${jsonValidationThreadFile(file)}.map`, { force: true })
    })
    return file
  }, (error: unknown) => {
    bundle = undefined
    throw new BenchmarkFailure(`the server bundle could not be built: ${error instanceof Error ? error.message : String(error)}`)
  })
  return [...startFlags, await bundle]
}

const started = new Set<{ readonly kill: (signal: NodeJS.Signals) => boolean }>()

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
export const startServer = async (settings: Readonly<Record<string, string>>, progress: (m: string) => void): Promise<ServerHandle> => {
  const tag = runTag()
  const streams = {
    PRODUCT_BATCHES_STREAM: `bench:${tag}:products:batches`,
    LOAD_EVENTS_STREAM: `bench:${tag}:product-loads:events`,
    CAPACITY_EVENTS_STREAM: `bench:${tag}:capacity:events`
  }
  const database = databaseUrl()
  const env: Record<string, string> = {
    ...Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined)),
    HOST: "127.0.0.1",
    PORT: "0",
    INTERNAL_PORT: "0",
    JWT_SECRET: BENCH_JWT_SECRET,
    CAPACITY_API_KEYS: BENCH_CAPACITY_KEY,
    CONSUMER_NAME: `bench-${tag}`,
    SPOOL_DIR: tmpdir(),
    ...(database === undefined ? { DATA_DIR: "memory://" } : {}),
    // Node options for the servers alone (a heap cap tells a leak from a heap V8 lets grow).
    ...(process.env["BENCH_SERVER_NODE_OPTIONS"] === undefined ? {} : { NODE_OPTIONS: process.env["BENCH_SERVER_NODE_OPTIONS"] }),
    ...streams,
    ...settings
  }
  // Node flags NODE_OPTIONS refuses, for the servers alone: `--cpu-prof --cpu-prof-dir=DIR` profiles them.
  const nodeArgs = process.env["BENCH_SERVER_NODE_ARGS"]?.split(" ").filter((arg) => arg !== "") ?? []
  const args = [...nodeArgs, ...(await serverArgs(`${env["NODE_OPTIONS"] ?? ""} ${nodeArgs.join(" ")}`))]
  const child = spawn(process.execPath, args, { cwd: repositoryRoot, env, stdio: ["ignore", "pipe", "pipe"] })
  let tail = ""
  const keep = (chunk: string) => {
    tail = (tail + chunk).slice(-3000)
  }
  child.stderr.setEncoding("utf8").on("data", keep)
  started.add(child)
  child.on("exit", () => started.delete(child))
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
    const redis = redisUrl()
    if (redis !== undefined) {
      const batches = streams.PRODUCT_BATCHES_STREAM
      await deleteKeys(redis, [batches, `${batches}:dead`, streams.LOAD_EVENTS_STREAM, streams.CAPACITY_EVENTS_STREAM]).catch(() => undefined)
    }
  }
  const dropPublished = async () => {
    const redis = redisUrl()
    if (redis !== undefined) await deleteKeys(redis, [streams.PRODUCT_BATCHES_STREAM])
  }
  const logTail = () => {
    const lines = tail.trim().split("\n")
    const telling = lines.filter((line) => /ERROR|WARN|message:/.test(line))
    return (telling.length > 0 ? telling : lines).slice(-6).map((line) => line.trim().slice(0, 400)).join(" / ")
  }
  return { url, internalUrl: () => internalUrl, pid, rss, logTail, dropPublished, stop }
}
