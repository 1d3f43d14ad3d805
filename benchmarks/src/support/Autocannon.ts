import { Result, Schema } from "effect"
import { rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { BenchmarkFailure } from "../Benchmark.ts"
import { runToEnd } from "./ChildProcess.ts"

const AUTOCANNON = createRequire(import.meta.url).resolve("autocannon")
const VARIED_LOAD = fileURLToPath(new URL("./variedLoadMain.ts", import.meta.url))

const Latency = Schema.Struct({ average: Schema.Number, p50: Schema.Number, p99: Schema.Number, p99_9: Schema.Number, max: Schema.Number })
const Output = Schema.Struct({
  duration: Schema.Number,
  errors: Schema.Number,
  timeouts: Schema.Number,
  non2xx: Schema.Number,
  "2xx": Schema.Number,
  statusCodeStats: Schema.Record(Schema.String, Schema.Struct({ count: Schema.Number })),
  latency: Latency
})
const decodeOutput = Schema.decodeUnknownResult(Schema.fromJsonString(Output))

export interface LoadOptions {
  readonly url: string
  readonly connections: number
  /** How long to keep the connections busy; or, with `amount`, stop after that many requests instead. */
  readonly seconds: number
  readonly amount?: number
  readonly method?: "GET" | "POST"
  readonly headers?: Readonly<Record<string, string>>
  readonly bodyFile?: string
  /** POST bodies each request draws from at random (seeded), instead of one `bodyFile`. */
  readonly bodies?: { readonly texts: ReadonlyArray<string>; readonly seed: number }
  /** Requests per second over all connections (autocannon's --overallRate): a steady rate instead of flat out. */
  readonly rate?: number
  /** "any": non-2xx answers, errors and timeouts are counted in the result instead of failing the benchmark. */
  readonly accept?: "2xx" | "any"
  /** With varied bodies: called once the load's own process is up and about to send (it takes a moment to start). */
  readonly onStarted?: () => void
}

export interface LoadResult {
  readonly requestsPerSecond: number
  readonly requests: number
  /** Mean latency (ms). */
  readonly mean: number
  readonly p50: number
  readonly p99: number
  readonly p999: number
  /** The slowest request of the load. */
  readonly max: number
  /** Answers by HTTP status ("200": n, "503": m). */
  readonly statuses: Readonly<Record<string, number>>
  readonly errors: number
  readonly timeouts: number
}

/**
 * autocannon ends a run on its sampling tick (every second by default), so a run of `amount` requests
 * lasted a whole number of seconds: 2 requests of 140 ms were "1.98 req/s". Sampling every 10 ms ends
 * it within 10 ms of its last answer.
 */
export const AMOUNT_SAMPLE_MS = 10

/** The line the varied-bodies load process (variedLoadMain.ts) writes to stderr right before its load begins. */
export const LOAD_STARTED = "load starting"

const runCli = (options: LoadOptions) => {
  if (options.onStarted !== undefined) throw new BenchmarkFailure("onStarted is told by the varied-bodies load process only")
  return runToEnd(process.execPath, [
    AUTOCANNON, "--json", "--connections", String(options.connections),
    ...(options.amount === undefined ? ["--duration", String(options.seconds)] : ["--amount", String(options.amount), "--sampleInt", String(AMOUNT_SAMPLE_MS)]),
    "--method", options.method ?? "GET", "--timeout", "180",
    ...(options.rate === undefined ? [] : ["--overallRate", String(options.rate)]),
    ...Object.entries(options.headers ?? {}).flatMap(([k, v]) => ["--headers", `${k}=${v}`]),
    ...(options.bodyFile === undefined ? [] : ["--input", options.bodyFile]),
    options.url
  ], "autocannon")
}

/** The CLI takes one body; a script of ours drives autocannon's API to draw each request's body. */
const runVaried = async (options: LoadOptions, bodies: NonNullable<LoadOptions["bodies"]>) => {
  if (options.method !== "POST" || options.rate !== undefined) throw new BenchmarkFailure("varied bodies are POSTed flat out (no --overallRate)")
  const file = join(tmpdir(), `retail-bench-varied-${crypto.randomUUID()}.json`)
  writeFileSync(file, JSON.stringify({
    url: options.url,
    connections: options.connections,
    seconds: options.seconds,
    ...(options.amount === undefined ? {} : { amount: options.amount }),
    headers: options.headers ?? {},
    bodies: bodies.texts,
    seed: bodies.seed
  }))
  try {
    const { onStarted } = options
    let heard = ""
    const told = onStarted === undefined ? undefined : (chunk: string) => {
      if (heard.includes(LOAD_STARTED)) return
      heard = (heard + chunk).slice(-4 * LOAD_STARTED.length)
      if (heard.includes(LOAD_STARTED)) onStarted()
    }
    return await runToEnd(process.execPath, ["--import", "tsx", VARIED_LOAD, file], "autocannon (varied bodies)", undefined, told)
  } finally {
    rmSync(file, { force: true })
  }
}

/**
 * autocannon in its own process (its event loop is not the runner's), JSON output decoded. Any
 * non-2xx answer, connection error or timeout fails the benchmark (a fast error is no figure)
 * unless `accept: "any"` asks for them to be counted.
 */
export const autocannon = async (options: LoadOptions): Promise<LoadResult> => {
  const { stdout } = options.bodies === undefined ? await runCli(options) : await runVaried(options, options.bodies)
  const result = Result.getOrElse(decodeOutput(stdout.trim()), (error) => {
    throw new BenchmarkFailure(`autocannon printed no result: ${error.message.slice(0, 300)}`)
  })
  if (options.accept !== "any" && (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0)) {
    throw new BenchmarkFailure(
      `${options.method ?? "GET"} ${options.url}: ${result.non2xx} non-2xx answers (${JSON.stringify(result.statusCodeStats)}), ` +
        `${result.errors} errors, ${result.timeouts} timeouts out of ${result["2xx"] + result.non2xx}`
    )
  }
  if (result["2xx"] === 0) throw new BenchmarkFailure(`${options.method ?? "GET"} ${options.url}: no request completed in ${options.seconds} s (a request takes longer: give it more time)`)
  return {
    requestsPerSecond: result["2xx"] / result.duration,
    requests: result["2xx"],
    mean: result.latency.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    p999: result.latency.p99_9,
    max: result.latency.max,
    statuses: Object.fromEntries(Object.entries(result.statusCodeStats).map(([status, { count }]) => [status, count])),
    errors: result.errors,
    timeouts: result.timeouts
  }
}

/**
 * One body file POSTed flat out at `connections` for the run's seconds (`size`); a smoke run sends
 * `smokeRequests` instead (4 a connection unless given). Without its url, which each server adds.
 */
export const bodyFileLoad = (
  run: { readonly size: number; readonly scale: "full" | "smoke" },
  load: { readonly connections: number; readonly headers: Readonly<Record<string, string>>; readonly bodyFile: string; readonly smokeRequests?: number }
): Omit<LoadOptions, "url"> => ({
  connections: load.connections,
  seconds: run.size,
  method: "POST",
  headers: load.headers,
  bodyFile: load.bodyFile,
  ...(run.scale === "smoke" ? { amount: load.smokeRequests ?? load.connections * 4 } : {})
})

/** The unmeasured load before a measured one (`warmUp`): long enough for V8 to optimise the hot path of a server answering a few thousand requests/s. */
export const WARM_UP_SECONDS = 1

/** What the reports say of `warmUp`. */
export const WARM_UP_NOTE = `Each measured load of a server follows an unmeasured one of the same requests on it (${WARM_UP_SECONDS} s; the smoke run's amount), the bare server's too: the figures are a server's steady cost, as in service, not its first compilations.`

/**
 * An unmeasured load of the same requests, to run before a measured one: a server measured right
 * after its start answers its first second or two with code V8 has not optimised yet (a 2 s load of
 * the first case measured 25-35% fewer requests/s than the same load later on the same server),
 * while the bare server it is compared with has no such code.
 */
export const warmUp = async (options: LoadOptions): Promise<void> => {
  await autocannon({ ...options, seconds: WARM_UP_SECONDS })
}
