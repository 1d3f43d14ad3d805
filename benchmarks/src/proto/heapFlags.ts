/**
 * Prototype measurement (issue 21): what V8's heap flags do to a 200k-product /handle-json load, from
 * its first byte to COMPLETED, with `--trace-gc` on every process so that the full collections of
 * each thread can be counted. The npm start bundle (built by this script into a folder of its own
 * under dist/, removed at the end) with npm start's Node.js flags, then the flags given; real
 * PostgreSQL and Redis (DATABASE_URL, REDIS_URL), the benchmark's file (seed 42). Prints one JSON
 * line a load (servers', each process's, PostgreSQL's and Redis' CPU a product, each process's peak
 * RSS) and one line a V8 isolate (scavenges, full collections and their time; given
 * `--trace-incremental-marking`, also what started each full collection's marking and how far below
 * V8's old-generation limit the old generation was then: marking that begins with megabytes of room
 * was started by what V8 counts beside the old generation, the external memory allocated since the
 * last full collection). HEAP_FLAGS_TRACE_DIR: a folder to keep each
 * process's whole trace in.
 *
 *   npx tsx benchmarks/src/proto/heapFlags.ts one [products] [--flag ...]
 *     one process as npm start runs it (WORKERS=2, the workers on their thread), the flags on it
 *   npx tsx benchmarks/src/proto/heapFlags.ts split [products] [--flag ...]
 *     an API process (RUN_WORKERS=false) and one worker process of the cluster plan's worker role
 *     (its env, not its flags: the flags given instead), as `npm run cluster` runs them
 *   npx tsx benchmarks/src/proto/heapFlags.ts split-api [products] [--flag ...]
 *     the same two processes, the worker with its role's flags, the flags given on the API process
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { ensureInputs } from "../../parsers/generate.ts"
import { buildServer } from "../../../scripts/buildServer.ts"
import { WORKER_ROLE } from "../../../scripts/clusterPlan.ts"
import { serverNodeFlags } from "../../../scripts/serverNodeFlags.ts"
import { acceptedLoad, waitCompleted } from "../support/Http.ts"
import { cpuSharesDuring, processCpuSeconds } from "../support/ProcessCpu.ts"
import { BENCH_JWT_SECRET, mintToken, runTag } from "../support/Tokens.ts"
import { uploadFiles } from "../support/Upload.ts"

if (process.env["DATABASE_URL"] === undefined || process.env["REDIS_URL"] === undefined) {
  // Without them each process would have a database of its own, and a split load would never complete.
  console.error("heapFlags.ts measures against real PostgreSQL and Redis: set DATABASE_URL and REDIS_URL.")
  process.exit(2)
}
const [layout = "one", sizeArg = "200000", ...flags] = process.argv.slice(2)
if (layout !== "one" && layout !== "split" && layout !== "split-api") throw new Error(`layout is one, split or split-api, not ${layout}`)
const size = Number(sizeArg)
const tag = runTag()
const basePort = 18_300 + Math.floor(Math.random() * 500)
const common = {
  ...process.env,
  HOST: "127.0.0.1",
  INTERNAL_PORT: "0",
  JWT_SECRET: BENCH_JWT_SECRET,
  LOG_LEVEL: "warn",
  PRODUCT_BATCHES_STREAM: `heap-flags:${tag}:batches`,
  LOAD_EVENTS_STREAM: `heap-flags:${tag}:events`,
  CAPACITY_EVENTS_STREAM: `heap-flags:${tag}:capacity`
}

interface Started {
  readonly name: string
  readonly child: ChildProcess
  readonly pid: number
  readonly port: number
  readonly output: () => string
}

const bundleFolder = join("dist", `heap-flags-${process.pid}`)
const bundle = await buildServer(join(bundleFolder, "server.mjs"))

const start = (name: string, port: number, env: Readonly<Record<string, string>>, extraFlags: ReadonlyArray<string>): Started => {
  const child = spawn(process.execPath, [...serverNodeFlags(), ...extraFlags, "--trace-gc", bundle], {
    env: { ...common, ...env, PORT: String(port), CONSUMER_NAME: `${name}-${tag}` },
    stdio: ["ignore", "pipe", "pipe"]
  })
  if (child.pid === undefined) throw new Error(`${name} did not start`)
  const chunks: Array<string> = []
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => chunks.push(chunk))
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => chunks.push(chunk))
  return { name, child, pid: child.pid, port, output: () => chunks.join("") }
}

const healthy = async (server: Started): Promise<void> => {
  for (let attempt = 0; attempt < 600; attempt++) {
    const ok = await fetch(`http://127.0.0.1:${server.port}/health`).then((r) => r.ok, () => false)
    if (ok) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`${server.name} did not answer /health: ${server.output().slice(-500)}`)
}

const peakMiB = (pid: number): number =>
  Math.round(Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024)

/** `[pid:isolate] ... Scavenge|Mark-Compact a (b) -> c (d) MB, pause / ... ms (+ incremental ms in N steps ...)`. */
const TRACE = /^\[\d+:(0x[0-9a-f]+)\]\s+\d+ ms: (Scavenge|Mark-Compact)\b.*?MB, ([\d.]+) \/[^(]*(?:\(\+ ([\d.]+) ms in)?/

/** `--trace-incremental-marking`: `[pid:isolate] ... [IncrementalMarking] Start (reason): (size/limit/slack) v8: aMB / bMB / cMB ...`. */
const MARKING_START = /^\[\d+:(0x[0-9a-f]+)\].*\[IncrementalMarking\] Start \(([^)]*)\): \(size\/limit\/slack\) v8: \d+MB \/ \d+MB \/ (\d+)MB/

const median = (values: ReadonlyArray<number>): number | null => {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? null
}

const isolates = (output: string) => {
  const byIsolate = new Map<string, { scavenges: number; scavengeMs: number; fullCollections: number; fullMs: number; incrementalMs: number; reasons: Record<string, number>; markingStarts: Record<string, Array<number>> }>()
  const entryOf = (isolate: string) => byIsolate.get(isolate) ?? { scavenges: 0, scavengeMs: 0, fullCollections: 0, fullMs: 0, incrementalMs: 0, reasons: {}, markingStarts: {} }
  for (const line of output.split("\n")) {
    const start = MARKING_START.exec(line)
    if (start !== null) {
      const [, isolate = "", reason = "?", slack = "0"] = start
      const entry = entryOf(isolate)
      // The room left below V8's old-generation limit when marking began: near 0 when the old generation reached it.
      entry.markingStarts[reason] = [...(entry.markingStarts[reason] ?? []), Number(slack)]
      byIsolate.set(isolate, entry)
      continue
    }
    const match = TRACE.exec(line)
    if (match === null) continue
    const [, isolate = "", kind, pause = "0", incremental] = match
    const entry = entryOf(isolate)
    if (kind === "Scavenge") {
      entry.scavenges++
      entry.scavengeMs += Number(pause)
    } else {
      entry.fullCollections++
      // What started it, as V8 says at the end of the line ("external memory pressure", "allocation failure", ...).
      const reason = /current mu = [\d.]+\) (.*)$/.exec(line)?.[1] ?? "?"
      entry.reasons[reason] = (entry.reasons[reason] ?? 0) + 1
      entry.fullMs += Number(pause)
      entry.incrementalMs += Number(incremental ?? 0)
    }
    byIsolate.set(isolate, entry)
  }
  return [...byIsolate.entries()].map(([isolate, e]) => ({
    isolate,
    scavenges: e.scavenges,
    scavengeMs: Math.round(e.scavengeMs),
    fullCollections: e.fullCollections,
    fullMs: Math.round(e.fullMs + e.incrementalMs),
    fullCollectionReasons: e.reasons,
    ...(Object.keys(e.markingStarts).length === 0 ? {} : {
      markingStarts: Object.fromEntries(Object.entries(e.markingStarts).map(([reason, slacks]) => [reason, { count: slacks.length, medianSlackMiB: median(slacks), withRoomOf4MiBOrMore: slacks.filter((slack) => slack >= 4).length }]))
    })
  }))
}

const files = await ensureInputs(size)
const servers = layout === "one"
  ? [start("server", basePort, { WORKERS: "2" }, flags)]
  : layout === "split"
  ? [start("api", basePort, { RUN_WORKERS: "false" }, []), start("worker", basePort + 1, { ...WORKER_ROLE.env, WORKERS: "2" }, flags)]
  : [start("api", basePort, { RUN_WORKERS: "false" }, flags), start("worker", basePort + 1, { ...WORKER_ROLE.env, WORKERS: "2" }, WORKER_ROLE.nodeFlags)]
try {
  for (const server of servers) await healthy(server)
  const api = `http://127.0.0.1:${basePort}`
  const token = await mintToken(`HEAP-${tag}`)
  const startedAt = performance.now()
  const cpuBefore = servers.map((s) => processCpuSeconds(s.pid))
  const shares = await cpuSharesDuring(servers.map((s) => s.pid), async () => {
    const upload = await uploadFiles(`${api}/v1/handle-json`, token, [{ name: "productsJson", file: files.json, contentType: "application/json" }])
    return waitCompleted(api, acceptedLoad({ status: upload.status, text: upload.body }, "POST /v1/handle-json"), token, 600_000)
  })
  const cpuOfEach = servers.map((s, i) => {
    const before = cpuBefore[i]
    const after = processCpuSeconds(s.pid)
    return [s.name, before === undefined || after === undefined ? undefined : after - before] as const
  })
  const seconds = (shares.result - startedAt) / 1000
  const perProduct = (cpuSeconds: number | undefined) => cpuSeconds === undefined ? null : Math.round((cpuSeconds * 1e7) / size) / 10
  console.log(JSON.stringify({
    layout,
    flags: flags.join(" "),
    products: size,
    productsPerSecond: Math.round(size / seconds),
    serversMicrosPerProduct: perProduct(shares.servers),
    eachMicrosPerProduct: Object.fromEntries(cpuOfEach.map(([name, cpu]) => [name, perProduct(cpu)])),
    postgresMicrosPerProduct: perProduct(shares.postgres),
    redisMicrosPerProduct: perProduct(shares.redis),
    peakRssMiB: Object.fromEntries(servers.map((s) => [s.name, peakMiB(s.pid)]))
  }))
  for (const server of servers) for (const isolate of isolates(server.output())) console.log(`  ${server.name} ${JSON.stringify(isolate)}`)
  const traceFolder = process.env["HEAP_FLAGS_TRACE_DIR"]
  if (traceFolder !== undefined) {
    mkdirSync(traceFolder, { recursive: true })
    for (const server of servers) writeFileSync(join(traceFolder, `heap-flags-${tag}-${server.name}.log`), server.output())
  }
} finally {
  for (const server of servers) server.child.kill("SIGTERM")
  await Promise.all(servers.map((server) => new Promise((resolve) => server.child.once("exit", resolve))))
  rmSync(bundleFolder, { recursive: true, force: true })
}
