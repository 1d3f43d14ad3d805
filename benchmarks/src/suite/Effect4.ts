import { spawn } from "node:child_process"
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"
import { external } from "../../../scripts/buildServer.ts"
import { serverNodeFlags } from "../../../scripts/serverNodeFlags.ts"
import { type Benchmark, BenchmarkFailure, figure, type Figure } from "../Benchmark.ts"
import { autocannon, bodyFileLoad, type LoadResult, WARM_UP_NOTE, warmUp } from "../support/Autocannon.ts"
import { startBareServer } from "../support/BareServer.ts"
import { post } from "../support/Http.ts"
import { cpuOfDuring } from "../support/ProcessCpu.ts"
import { watchRss } from "../support/Rss.ts"
import { startServer } from "../support/ServerProcess.ts"
import { BENCH_CAPACITY_KEY } from "../support/Tokens.ts"
import { type CapacityRequestKind, variantA, variantBAllModesSearch } from "./Capacity.ts"

// Issue 19: POST /v1/delivery/capacity on the server's fast lane (the npm start bundle) and on two
// in-tree Effect 4 candidates (benchmarks/src/effect4/: the same answer function behind an HttpRouter
// route and behind an HttpApi endpoint), beside a bare node:http server, all interleaved in one run.
// Not part of the whole-suite run: `npm run bench -- effect4`. The recorded step-1 runs
// (results/effect4.md, effect4-loaded.md) were made before the migration, when the server was on
// Effect 3.22 and the candidates on effect 4.1.0 from a standalone folder.

const repositoryRoot = fileURLToPath(new URL("../../../", import.meta.url))
/** The root's effect, which the server and the candidates are built with, named in the figures' notes. */
const effectVersion = (JSON.parse(readFileSync(join(repositoryRoot, "node_modules", "effect", "package.json"), "utf8")) as { version: string }).version
const candidatesDir = join(repositoryRoot, "benchmarks", "src", "effect4")
const CONNECTIONS = 64
const PATH = "/v1/delivery/capacity"

/** Each candidate bundled as `npm start`'s server is (scripts/buildServer.ts), from benchmarks/src/effect4. */
const bundle = async (name: string): Promise<string> => {
  const outfile = join(repositoryRoot, "dist", "bench", `effect4-${name}-${process.pid}.mjs`)
  await build({
    entryPoints: [join(candidatesDir, `${name}.ts`)],
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
const startCandidate = async (label: string, file: string): Promise<Candidate> => {
  const child = spawn(process.execPath, [...serverNodeFlags(), file], {
    cwd: repositoryRoot,
    env: { ...process.env, HOST: "127.0.0.1", PORT: "0", CAPACITY_API_KEYS: BENCH_CAPACITY_KEY },
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
/** The server itself: the npm start bundle, whose node:http fast lane takes this endpoint ahead of its Effect stack. */
const FAST_LANE = "fast lane (npm start server)"
const ROUTER = "Effect 4 HttpRouter candidate"
const HTTP_API = "Effect 4 HttpApi candidate"

export const effect4: Benchmark = {
  name: "effect4",
  description: `Issue 19: POST ${PATH} at ${CONNECTIONS} connections (autocannon) on four servers, each in its own process, ` +
    "interleaved in each run (the order rotates from run to run): a bare node:http server answering the same JSON bytes; " +
    `the server's fast lane (the npm start bundle, effect ${effectVersion}: node:http ahead of the Effect stack); and two in-tree ` +
    "candidates on the same effect (benchmarks/src/effect4/): the same answer function behind an HttpRouter route, and behind " +
    "an HttpApi endpoint whose payload the contract's Schema decodes (docs/effect4.md).",
  sizeUnit: "seconds of load per server and case",
  defaultSize: 2,
  smokeSize: 1,
  defaultRuns: 5,
  open: async (setup) => {
    const [routerFile, apiFile] = await Promise.all([bundle("capacityRouter"), bundle("capacityApi")])
    setup.note(WARM_UP_NOTE)
    setup.note(`Candidates: benchmarks/src/effect4/ on the root's effect ${effectVersion} and @effect/platform-node, bundled by esbuild as npm start's server is and run with npm start's Node flags (${serverNodeFlags().join(" ")}); the fast lane is the server itself, the npm start bundle (RUN_WORKERS=false, embedded in-memory PGlite unless DATABASE_URL). The bare server runs under tsx, as in the capacity benchmark.`)
    setup.note("Candidates answer with the server's function once the checks passed (answerBody, services/capacity/src/answer/AnswerCapacityRequest.ts) on the demo network with no usage (benchmarks/src/effect4/DemoCapacity.ts) and leave out the per-key rate limit; the HttpApi candidate decodes each body twice (the contract's Schema, packages/api/src/CapacityApi.ts, then the engine's own decoder). Before anything is measured, every candidate's answer to every case must equal the fast lane's byte for byte.")
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
      started.push({ label: FAST_LANE, url: server.url, pid: server.pid, rss: server.rss, stop: server.stop })
      const router = await startCandidate(ROUTER, routerFile)
      started.push(router)
      const api = await startCandidate(HTTP_API, apiFile)
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
        const load = bodyFileLoad(setup, { connections: CONNECTIONS, headers, bodyFile: c.bodyFile })
        const results = new Map<string, { readonly load: LoadResult; readonly cpuSeconds: number | undefined; readonly peakMiB: number }>()
        for (const server of order) {
          const url = `${server.url}${server.label === BARE ? c.barePath : PATH}`
          await warmUp({ ...load, url })
          server.rss.reset()
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
          const goal = server.label === ROUTER ? { goal: { on: "ratio" as const, atLeast: 0.5, source: "issue 19" } } : {}
          const bareCpu = bare.cpuSeconds === undefined ? 0 : (bare.cpuSeconds / Math.max(1, bare.load.requests)) * 1e6
          const cpu = r.cpuSeconds === undefined ? 0 : (r.cpuSeconds / Math.max(1, r.load.requests)) * 1e6
          const cpuLimit = server.label === BARE ? {} : { limit: { name: `${BARE}, same body, same run`, sample: bareCpu } }
          figures.push(
            figure(`${name}: requests/s`, "req/s", r.load.requestsPerSecond, { ...limit, ...goal }),
            // Paired within the run (the two loads seconds apart): steadier than the ratio of medians on a shared machine.
            ...(server.label === BARE ? [] : [figure(`${name}: requests/s ÷ bare node:http's, same run`, "x", r.load.requestsPerSecond / bare.load.requestsPerSecond, server.label === ROUTER ? { goal: { on: "median", atLeast: 0.5, source: "issue 19" } } : {})]),
            figure(`${name}: p50 latency`, "ms", r.load.p50, { better: "lower" }),
            figure(`${name}: p99 latency`, "ms", r.load.p99, {
              better: "lower",
              ...(server.label === ROUTER ? { goal: { on: "median" as const, below: 20, source: "issue 19" } } : {})
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
