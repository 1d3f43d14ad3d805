/**
 * A 20k-product /v1/handle-json load from its first byte to COMPLETED on `npm start`'s bundle
 * (run `npm run build` first) with its embedded defaults, once per queue: QUEUE=memory and
 * QUEUE=postgres, each on a fresh DATA_DIR in the OS temp folder. Both servers run at once and take
 * loads in turn, so that a shared machine's load weighs on both alike; besides wall time, the CPU
 * time of the server and of its PostgreSQL processes (Linux /proc) is less sensitive to neighbours.
 * Polls the load every 50 ms. `npx tsx benchmarks/src/queueEndToEnd.ts [products] [loads per queue]`.
 */
import { sampleProducts } from "@retail/testkit"
import { spawn } from "node:child_process"
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Jose from "jose"

const PRODUCTS = Number(process.argv[2] ?? "20000")
const LOADS = Number(process.argv[3] ?? "3")
const SECRET = "queue-bench-secret-with-enough-entropy-0123456789"

const freePort = () =>
  new Promise<number>((done) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => done(port))
    })
  })

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms))

const peakRssMiB = (pid: number) => {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  return match === null ? Number.NaN : Number(match[1]) / 1024
}

const CLOCK_TICKS = 100

/** utime + stime (+ those of reaped children) of a process, in seconds. */
const cpuOf = (pid: number, children: boolean): number => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? []
    const at = (i: number) => Number(fields[i - 3] ?? "0")
    return (at(14) + at(15) + (children ? at(16) + at(17) : 0)) / CLOCK_TICKS
  } catch {
    return 0
  }
}

/** The embedded PostgreSQL's postmaster and its live backends (ended ones count in the postmaster's children time). */
const postgresCpu = (dataDir: string): number => {
  const postmaster = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0])
  let total = cpuOf(postmaster, true)
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]?.split(" ")[1])
      if (ppid === postmaster) total += cpuOf(Number(entry), true)
    } catch {
      // gone meanwhile
    }
  }
  return total
}

interface Server {
  readonly queue: string
  readonly base: string
  readonly pid: number
  readonly dataDir: string
  readonly stop: () => Promise<void>
}

const start = async (queue: "memory" | "postgres"): Promise<Server> => {
  const root = mkdtempSync(join(tmpdir(), "qe2e-"))
  chmodSync(root, 0o755)
  const dataDir = join(root, "pg")
  const port = await freePort()
  const env: Record<string, string> = { ...process.env as Record<string, string> }
  delete env["DATABASE_URL"]
  delete env["REDIS_URL"]
  const child = spawn(process.execPath, ["--max-semi-space-size=2", "--max-old-space-size=512", "--no-parallel-scavenge", "dist/server.mjs"], {
    env: { ...env, QUEUE: queue, DATA_DIR: dataDir, PORT: String(port), INTERNAL_PORT: String(await freePort()), HOST: "127.0.0.1", JWT_SECRET: SECRET, CAPACITY_API_KEYS: "k" },
    stdio: ["ignore", "ignore", "inherit"]
  })
  const base = `http://127.0.0.1:${port}`
  for (let i = 0; ; i++) {
    if (await fetch(`${base}/health`).then((r) => r.ok, () => false)) break
    if (i > 600) throw new Error("server did not start")
    await sleep(100)
  }
  return {
    queue,
    base,
    pid: child.pid ?? 0,
    dataDir,
    stop: async () => {
      child.kill("SIGTERM")
      await new Promise((done) => child.once("exit", done))
      rmSync(root, { recursive: true, force: true })
    }
  }
}

interface Figure {
  readonly accepted: number
  readonly completed: number
  readonly serverCpu: number
  readonly postgresCpu: number
}

const load = async (server: Server, bearer: string, n: number): Promise<Figure> => {
  const file = JSON.stringify({ products: sampleProducts(PRODUCTS, { prefix: `E${n}-` }) })
  const form = new FormData()
  form.append("productsJson", new Blob([file], { type: "application/json" }), "products.json")
  const cpu = [cpuOf(server.pid, false), postgresCpu(server.dataDir)]
  const started = performance.now()
  const response = await fetch(`${server.base}/v1/handle-json`, { method: "POST", headers: { authorization: `Bearer ${bearer}` }, body: form })
  const body = await response.text()
  if (response.status !== 200) throw new Error(`${response.status} ${body}`)
  const accepted = performance.now() - started
  const code = (JSON.parse(body) as { processCode: string }).processCode
  while (true) {
    const view = await (await fetch(`${server.base}/v1/loads/${code}`, { headers: { authorization: `Bearer ${bearer}` } })).json() as { status: string }
    if (view.status === "COMPLETED") break
    if (view.status === "FAILED") throw new Error(JSON.stringify(view))
    await sleep(50)
  }
  const completed = performance.now() - started
  return { accepted, completed, serverCpu: cpuOf(server.pid, false) - (cpu[0] ?? 0), postgresCpu: postgresCpu(server.dataDir) - (cpu[1] ?? 0) }
}

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0
const s1 = (ms: number) => (ms / 1000).toFixed(2)

const bearer = await new Jose.SignJWT({ scope: "products:write products:read", company: "BENCH" })
  .setProtectedHeader({ alg: "HS256" }).setIssuedAt().setExpirationTime("1h").sign(new TextEncoder().encode(SECRET))
const servers = [await start("memory"), await start("postgres")]
try {
  const figures = new Map<string, Array<Figure>>()
  for (let n = 0; n < LOADS; n++) {
    for (const server of n % 2 === 0 ? servers : [...servers].reverse()) {
      const figure = await load(server, bearer, n)
      figures.set(server.queue, [...(figures.get(server.queue) ?? []), figure])
    }
  }
  for (const server of servers) {
    const runs = figures.get(server.queue) ?? []
    console.log(
      `QUEUE=${server.queue}: first byte to COMPLETED ${runs.map((f) => s1(f.completed)).join(", ")} s (median ${s1(median(runs.map((f) => f.completed)))}); ` +
        `200 after ${runs.map((f) => s1(f.accepted)).join(", ")} s; ` +
        `CPU per load: server ${median(runs.map((f) => f.serverCpu)).toFixed(2)} s, PostgreSQL ${median(runs.map((f) => f.postgresCpu)).toFixed(2)} s (medians); ` +
        `peak RSS of the server ${peakRssMiB(server.pid).toFixed(0)} MiB`
    )
  }
} finally {
  for (const server of servers) await server.stop()
}
