import { spawn } from "node:child_process"
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"
import { external } from "../../../scripts/buildServer.ts"
import { serverNodeFlags } from "../../../scripts/serverNodeFlags.ts"
import { type Benchmark, BenchmarkFailure, figure, type Figure } from "../Benchmark.ts"
import { autocannon, type LoadResult } from "../support/Autocannon.ts"
import { startBareServer } from "../support/BareServer.ts"
import { runToEnd } from "../support/ChildProcess.ts"
import { post } from "../support/Http.ts"
import { cpuOfDuring } from "../support/ProcessCpu.ts"
import { watchRss } from "../support/Rss.ts"
import { startServer } from "../support/ServerProcess.ts"
import { BENCH_CAPACITY_KEY, BENCH_JWT_SECRET, mintToken, runTag } from "../support/Tokens.ts"
import { type CapacityRequestKind, variantA, variantBAllModesSearch } from "./Capacity.ts"
import { productsBody } from "./LoadProducts.ts"

// Issue 19, step 1: POST /v1/delivery/capacity on today's fast lane and on Effect 4's HttpRouter and
// HttpApi (benchmarks/effect4/, a standalone npm folder made while the root was on Effect 3, with
// its own lockfile), beside a bare node:http server, all interleaved in one run. Not part of the
// whole-suite run: `npm run bench -- effect4` (it installs benchmarks/effect4 on first use).

const repositoryRoot = fileURLToPath(new URL("../../../", import.meta.url))
/** The effect of today's server (the root's node_modules), named in the figures: the recorded runs measured 3.22. */
const todayEffect = (JSON.parse(readFileSync(join(repositoryRoot, "node_modules", "effect", "package.json"), "utf8")) as { version: string }).version
const effect4Dir = join(repositoryRoot, "benchmarks", "effect4")
const CONNECTIONS = 64
const PATH = "/v1/delivery/capacity"

/** The Effect 4 folder's own packages, from its lockfile: `npm --prefix benchmarks/effect4 ci` when absent or of another version. */
const installEffect4 = async (progress: (m: string) => void): Promise<string> => {
  const wanted = (JSON.parse(readFileSync(join(effect4Dir, "package.json"), "utf8")) as { dependencies: Record<string, string> }).dependencies["effect"]
  const installed = join(effect4Dir, "node_modules", "effect", "package.json")
  const version = existsSync(installed) ? (JSON.parse(readFileSync(installed, "utf8")) as { version: string }).version : undefined
  if (version !== wanted) {
    progress(`installing benchmarks/effect4 (npm ci; effect ${wanted ?? "?"}, found ${version ?? "none"})`)
    await runToEnd("npm", ["--prefix", effect4Dir, "ci", "--no-audit", "--no-fund"], "npm ci in benchmarks/effect4", 10 * 60_000)
  }
  return (JSON.parse(readFileSync(installed, "utf8")) as { version: string }).version
}

/** Each candidate bundled as `npm start`'s server is (scripts/buildServer.ts): effect from benchmarks/effect4, the engine's effect from the root. */
const bundle = async (name: string): Promise<string> => {
  const outfile = join(repositoryRoot, "dist", "bench", `effect4-${name}-${process.pid}.mjs`)
  await build({
    entryPoints: [join(effect4Dir, "src", `${name}.ts`)],
    outfile,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    minifyWhitespace: true,
    minifySyntax: true,
    // As the server's bundle: PGlite (its WASM and data files beside its code) and the like stay in node_modules.
    external: [...external],
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    logLevel: "warning"
  })
  process.on("exit", () => rmSync(outfile, { force: true }))
  return outfile
}

interface Candidate {
  readonly label: string
  readonly url: string
  readonly pid: number
  readonly rss: ReturnType<typeof watchRss>
  readonly stop: () => Promise<void>
}

/** A bundled candidate in its own process with npm start's Node flags; resolves once it prints `listening <port>`. */
const startCandidate = async (label: string, file: string, env: Readonly<Record<string, string>> = {}): Promise<Candidate> => {
  const child = spawn(process.execPath, [...serverNodeFlags(), file], {
    cwd: repositoryRoot,
    env: { ...process.env, HOST: "127.0.0.1", PORT: "0", CAPACITY_API_KEYS: BENCH_CAPACITY_KEY, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new BenchmarkFailure(`${label} did not listen within 60 s: ${output}`)), 60_000)
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk
      const match = /listening (\d+)/.exec(output)
      if (match !== null) {
        clearTimeout(timer)
        resolve(`http://127.0.0.1:${match[1] ?? "0"}`)
      }
    })
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      output = (output + chunk).slice(-3000)
    })
    child.on("exit", (code, signal) => {
      clearTimeout(timer)
      reject(new BenchmarkFailure(`${label} exited with ${signal ?? `code ${String(code)}`}: ${output}`))
    })
  })
  const pid = child.pid ?? 0
  const rss = watchRss(pid)
  return {
    label,
    url,
    pid,
    rss,
    stop: async () => {
      rss.stop()
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((r) => child.once("exit", r))
      child.kill("SIGTERM")
      const killer = setTimeout(() => child.kill("SIGKILL"), 10_000)
      await exited
      clearTimeout(killer)
    }
  }
}

interface Case {
  readonly label: string
  readonly items: number
  readonly kind: CapacityRequestKind
  readonly bodyText: string
  readonly bodyFile: string
  readonly barePath: string
}

const BARE = "bare node:http"

export const effect4: Benchmark = {
  name: "effect4",
  description: `Issue 19, step 1: POST ${PATH} at ${CONNECTIONS} connections (autocannon) on four servers, each in its own process, ` +
    "interleaved in each run (the order rotates from run to run): a bare node:http server answering the same JSON bytes; " +
    `today's fast lane (the npm start bundle, Effect ${todayEffect}, node:http ahead of the Effect stack); the same answer function ` +
    "behind an Effect 4 HttpRouter route; and behind an Effect 4 HttpApi endpoint whose payload Effect 4's Schema decodes " +
    "(benchmarks/effect4/, docs/effect4.md).",
  sizeUnit: "seconds of load per server and case",
  defaultSize: 2,
  smokeSize: 1,
  defaultRuns: 5,
  open: async (setup) => {
    const version = await installEffect4(setup.progress)
    const [routerFile, apiFile] = await Promise.all([bundle("capacityRouter"), bundle("capacityApi")])
    setup.note(`Effect 4 candidates: effect ${version} and @effect/platform-node from benchmarks/effect4 (own lockfile), bundled by esbuild as npm start's server is and run with npm start's Node flags (${serverNodeFlags().join(" ")}); today's server is the npm start bundle (RUN_WORKERS=false, embedded in-memory PGlite unless DATABASE_URL). The bare server runs under tsx, as in the capacity benchmark.`)
    setup.note("Candidates answer with the fast lane's function (services/capacity/src/CapacityAnswer.ts, imported across the versions through benchmarks/src/support/CapacityAnswerHost.ts) on the demo network with no usage; the HttpApi candidate decodes each body twice (Effect 4 Schema, then the engine's own decoder). Before anything is measured, every candidate's answer to every case must equal the fast lane's byte for byte.")
    const kinds = [variantA(), variantBAllModesSearch()]
    const cases: Array<Case> = [
      { kind: kinds[0], items: 1 },
      { kind: kinds[0], items: 5 },
      { kind: kinds[1], items: 5 }
    ].flatMap(({ kind, items }) => {
      if (kind === undefined) return []
      const bodyText = JSON.stringify(kind.body(items))
      const bodyFile = join(tmpdir(), `retail-bench-effect4-${kind.id}-${items}.json`)
      writeFileSync(bodyFile, bodyText)
      return [{ label: `${kind.label}, ${items} item(s)`, items, kind, bodyText, bodyFile, barePath: `/${kind.id}-${items}` }]
    })

    const started: Array<Candidate> = []
    const close = async () => {
      for (const c of started) await c.stop()
    }
    const headers = { "content-type": "application/json", authorization: `Bearer ${BENCH_CAPACITY_KEY}` }
    const idle: Record<string, number> = {}
    try {
      const server = await startServer({ RUN_WORKERS: "false" }, setup.progress)
      started.push({ label: `fast lane (today, Effect ${todayEffect})`, url: server.url, pid: server.pid, rss: server.rss, stop: server.stop })
      const router = await startCandidate("Effect 4 HttpRouter", routerFile)
      started.push(router)
      const api = await startCandidate("Effect 4 HttpApi", apiFile)
      started.push(api)
      const answers: Record<string, string> = {}
      for (const c of cases) {
        const expected = await post(`${server.url}${PATH}`, c.bodyText, headers)
        if (expected.status !== 200) throw new BenchmarkFailure(`fast lane, ${c.label}: answered ${expected.status} ${expected.text.slice(0, 300)}`)
        const wrong = c.kind.wrongAnswer(expected.text, c.items)
        if (wrong !== undefined) throw new BenchmarkFailure(`fast lane, ${c.label}: not the expected answer: ${wrong}`)
        for (const candidate of [router, api]) {
          const answer = await post(`${candidate.url}${PATH}`, c.bodyText, headers)
          if (answer.status !== 200 || answer.text !== expected.text) {
            throw new BenchmarkFailure(`${candidate.label}, ${c.label}: answered ${answer.status}, not the fast lane's answer: ${answer.text.slice(0, 300)}`)
          }
        }
        answers[c.barePath] = expected.text
      }
      const bare = await startBareServer(answers)
      started.unshift({ label: BARE, url: bare.url, pid: bare.pid, rss: watchRss(bare.pid), stop: bare.stop })
      // Idle: after start and one request per case, before any load.
      await new Promise((r) => setTimeout(r, 1000))
      for (const c of started) idle[c.label] = c.rss.currentMiB()
    } catch (error) {
      await close()
      throw error
    }

    const run = async (ctx: { readonly runIndex: number }): Promise<ReadonlyArray<Figure>> => {
      const figures: Array<Figure> = []
      if (ctx.runIndex === 0) {
        for (const c of started) {
          figures.push(figure(`${c.label}: RSS idle (after start, before any load)`, "MiB", idle[c.label] ?? 0, { better: "lower" }))
        }
      }
      // The order rotates from run to run: no server always runs first (or right after another's load).
      const order = started.map((_, i) => started[(i + ctx.runIndex) % started.length]).filter((c): c is Candidate => c !== undefined)
      for (const c of cases) {
        const load = {
          connections: CONNECTIONS,
          seconds: setup.size,
          method: "POST" as const,
          headers,
          bodyFile: c.bodyFile,
          ...(setup.scale === "smoke" ? { amount: CONNECTIONS * 4 } : {})
        }
        const results = new Map<string, { readonly load: LoadResult; readonly cpuSeconds: number | undefined; readonly peakMiB: number }>()
        for (const server of order) {
          server.rss.reset()
          const url = `${server.url}${server.label === BARE ? c.barePath : PATH}`
          const { result, cpuSeconds } = await cpuOfDuring(server.pid, () => autocannon({ ...load, url }))
          results.set(server.label, { load: result, cpuSeconds, peakMiB: server.rss.peakMiB() })
        }
        const bare = results.get(BARE)
        if (bare === undefined) throw new BenchmarkFailure("the bare server was not measured")
        setup.progress(`${c.label}: ${[...results].map(([label, r]) => `${label} ${r.load.requestsPerSecond.toFixed(0)} req/s p99 ${r.load.p99} ms`).join("; ")}`)
        for (const server of started) {
          const r = results.get(server.label)
          if (r === undefined) continue
          const name = `${c.label}, ${server.label}`
          const limit = server.label === BARE ? {} : { limit: { name: `${BARE}, same body, same run`, sample: bare.load.requestsPerSecond } }
          const goal = server.label === "Effect 4 HttpRouter" ? { goal: { on: "ratio" as const, atLeast: 0.5, source: "issue 19" } } : {}
          const bareCpu = bare.cpuSeconds === undefined ? 0 : (bare.cpuSeconds / Math.max(1, bare.load.requests)) * 1e6
          const cpu = r.cpuSeconds === undefined ? 0 : (r.cpuSeconds / Math.max(1, r.load.requests)) * 1e6
          const cpuLimit = server.label === BARE ? {} : { limit: { name: `${BARE}, same body, same run`, sample: bareCpu } }
          figures.push(
            figure(`${name}: requests/s`, "req/s", r.load.requestsPerSecond, { ...limit, ...goal }),
            // Paired within the run (the two loads seconds apart): steadier than the ratio of medians on a shared machine.
            ...(server.label === BARE ? [] : [figure(`${name}: requests/s ÷ bare node:http's, same run`, "x", r.load.requestsPerSecond / bare.load.requestsPerSecond, server.label === "Effect 4 HttpRouter" ? { goal: { on: "median", atLeast: 0.5, source: "issue 19" } } : {})]),
            figure(`${name}: p50 latency`, "ms", r.load.p50, { better: "lower" }),
            figure(`${name}: p99 latency`, "ms", r.load.p99, {
              better: "lower",
              ...(server.label === "Effect 4 HttpRouter" ? { goal: { on: "median" as const, atMost: 20, source: "issue 19" } } : {})
            }),
            figure(`${name}: max latency`, "ms", r.load.max, { better: "lower" }),
            figure(`${name}: server CPU per request`, "µs", cpu, { better: "lower", ...cpuLimit }),
            figure(`${name}: server peak RSS under load`, "MiB", r.peakMiB, { better: "lower" })
          )
        }
      }
      return figures
    }
    return { run, close }
  }
}

const LOAD_PRODUCTS_CLIENTS = [1, 4] as const
const LOAD_PRODUCTS_PER_CONNECTION = 3

/**
 * `clients` connections each POSTing `perClient` bodies one after another (fetch, keep-alive), timed here:
 * autocannon reports its duration in whole ticks of one second, which caps a load of a few
 * requests (2 requests of ~0.2 s at 1 connection come out as 2 / 1.0 s).
 */
const closedLoop = async (url: string, body: string, headers: Readonly<Record<string, string>>, clients: number, perClient: number): Promise<LoadResult> => {
  const latencies: Array<number> = []
  const start = performance.now()
  await Promise.all(Array.from({ length: clients }, async () => {
    for (let i = 0; i < perClient; i++) {
      const sent = performance.now()
      const answer = await post(url, body, headers)
      if (answer.status !== 200) throw new BenchmarkFailure(`${url} answered ${answer.status}: ${answer.text.slice(0, 300)}`)
      latencies.push(performance.now() - sent)
    }
  }))
  const seconds = (performance.now() - start) / 1000
  const sorted = latencies.sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0
  return { requestsPerSecond: sorted.length / seconds, requests: sorted.length, p50: at(0.5), p99: at(0.99), p999: at(0.999), max: at(1), statuses: { "200": sorted.length }, errors: 0, timeouts: 0 }
}
const TODAY = `today's endpoint (Effect ${todayEffect} HttpApi)`
const CANDIDATE = "Effect 4 HttpApi"

/**
 * Issue 19, step 1, the other endpoint: POST /v1/load-products with 3000 generated products (seed 7)
 * on today's server (the npm start bundle, RUN_WORKERS=false) and on an Effect 4 HttpApi endpoint that
 * decodes the contract's payload and hands it to today's LoadIntake (benchmarks/effect4/src/loadProductsApi.ts),
 * fresh servers each run (the in-process queue keeps every batch), the two loads of each client count back to back.
 */
export const effect4LoadProducts: Benchmark = {
  name: "effect4-load-products",
  description: `Issue 19, step 1: POST /v1/load-products at ${LOAD_PRODUCTS_CLIENTS.join(" and ")} connections (${LOAD_PRODUCTS_PER_CONNECTION} requests per connection one after another, timed by the runner) on today's server and on an Effect 4 HttpApi endpoint answered by today's LoadIntake (docs/effect4.md); fresh servers each run, the order alternating from run to run; RUN_WORKERS=false, in-process queue, embedded PGlite unless DATABASE_URL.`,
  sizeUnit: "products per request",
  defaultSize: 3000,
  smokeSize: 20,
  defaultRuns: 3,
  open: async (setup) => {
    const version = await installEffect4(setup.progress)
    const file = await bundle("loadProductsApi")
    const body = productsBody(setup.size)
    const bodyFile = join(tmpdir(), `retail-bench-effect4-load-products-${setup.size}.json`)
    writeFileSync(bodyFile, body)
    const token = await mintToken(`BENCH-${runTag()}`)
    const headers = { "content-type": "application/json", authorization: `Bearer ${token}` }
    setup.note(`${(body.length / 1e6).toFixed(2)} MB per body; effect ${version}; the candidate bundled by esbuild and run with npm start's Node flags, LoadIntake's own runtime (the root's effect) inside it (embedded PGlite ${process.env["DATABASE_URL"] === undefined ? "in memory" : "at DATABASE_URL"}, in-process queue).`)
    setup.note("The candidate does not carry over today's JSON value limit (measureJson), invalid-UTF-8 refusal and per-token rate limit; it decodes the payload ({ products: Array(Unknown) }) with Effect 4's Schema where today's handler reads the bytes itself.")

    const start = async (which: string): Promise<Candidate> => {
      if (which === TODAY) {
        const server = await startServer({ RUN_WORKERS: "false", REDIS_PUBLISH_TIMEOUT_MS: "120000" }, setup.progress)
        return { label: TODAY, url: server.url, pid: server.pid, rss: server.rss, stop: server.stop }
      }
      return startCandidate(CANDIDATE, file, {
        JWT_SECRET: BENCH_JWT_SECRET,
        ...(process.env["DATABASE_URL"] === undefined ? { DATA_DIR: "memory://" } : {})
      })
    }

    let running: Array<Candidate> = []
    const run = async (ctx: { readonly runIndex: number }): Promise<ReadonlyArray<Figure>> => {
      const figures: Array<Figure> = []
      const order = ctx.runIndex % 2 === 0 ? [TODAY, CANDIDATE] : [CANDIDATE, TODAY]
      const servers = new Map<string, Candidate>()
      try {
        for (const which of order) {
          const server = await start(which)
          running.push(server)
          servers.set(which, server)
          const answer = await post(`${server.url}/v1/load-products`, body, headers)
          if (answer.status !== 200 || !answer.text.includes(`"${setup.size} products are being processed`)) {
            throw new BenchmarkFailure(`${which}: answered ${answer.status} ${answer.text.slice(0, 300)}`)
          }
        }
        await new Promise((r) => setTimeout(r, 500))
        for (const which of order) figures.push(figure(`${which}: RSS idle (after start and one load)`, "MiB", servers.get(which)?.rss.currentMiB() ?? 0, { better: "lower" }))
        for (const clients of LOAD_PRODUCTS_CLIENTS) {
          const results = new Map<string, { readonly load: LoadResult; readonly cpuSeconds: number | undefined; readonly peakMiB: number }>()
          for (const which of order) {
            const server = servers.get(which)
            if (server === undefined) continue
            server.rss.reset()
            const { result, cpuSeconds } = await cpuOfDuring(server.pid, () => closedLoop(`${server.url}/v1/load-products`, body, headers, clients, LOAD_PRODUCTS_PER_CONNECTION))
            results.set(which, { load: result, cpuSeconds, peakMiB: server.rss.peakMiB() })
          }
          const today = results.get(TODAY)
          setup.progress(`${clients} client(s): ${[...results].map(([label, r]) => `${label} ${r.load.requestsPerSecond.toFixed(2)} req/s p99 ${r.load.p99} ms`).join("; ")}`)
          for (const [which, r] of results) {
            const name = `${clients} client(s), ${which}`
            const limit = which === TODAY || today === undefined ? {} : { limit: { name: `${TODAY}, same run`, sample: today.load.requestsPerSecond } }
            const cpu = r.cpuSeconds === undefined ? 0 : (r.cpuSeconds / Math.max(1, r.load.requests)) * 1000
            figures.push(
              figure(`${name}: requests/s`, "req/s", r.load.requestsPerSecond, limit),
              figure(`${name}: p50 latency`, "ms", r.load.p50, { better: "lower" }),
              figure(`${name}: p99 latency`, "ms", r.load.p99, { better: "lower" }),
              figure(`${name}: max latency`, "ms", r.load.max, { better: "lower" }),
              figure(`${name}: server CPU per request`, "ms", cpu, { better: "lower" }),
              figure(`${name}: server peak RSS under load`, "MiB", r.peakMiB, { better: "lower" })
            )
          }
        }
      } finally {
        for (const server of running) await server.stop()
        running = []
      }
      return figures
    }
    return {
      run,
      close: async () => {
        for (const server of running) await server.stop()
      }
    }
  }
}
