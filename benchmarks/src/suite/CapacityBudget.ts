import { rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Benchmark, BenchmarkFailure, figure, type Figure } from "../Benchmark.ts"
import { autocannon, type LoadOptions, type LoadResult, WARM_UP_NOTE, warmUp } from "../support/Autocannon.ts"
import { type BareServer, startBareServer } from "../support/BareServer.ts"
import { post } from "../support/Http.ts"
import { cpuOfDuring } from "../support/ProcessCpu.ts"
import { type ServerHandle, startServer, withServerLog } from "../support/ServerProcess.ts"
import { BENCH_CAPACITY_KEY } from "../support/Tokens.ts"
import { type WorkPoint, workAt } from "../support/WorkCurve.ts"
import { capacityRequests } from "./Capacity.ts"

const CONNECTIONS = 64
const ITEMS = 5
/** The request kinds whose requests/s issues 22 and 25 hold to 0.5x of bare node:http. */
const KINDS = ["A", "B-all-search"] as const
/** CPU work per request (µs) of the bare servers of the curve. */
export const WORK_MICROS = [0, 10, 20, 40, 80, 160] as const
const GOAL_RATIO = 0.5

interface Measured {
  readonly load: LoadResult
  readonly cpuMicros: number | undefined
}

const cpuMicrosPer = (cpuSeconds: number | undefined, requests: number) =>
  cpuSeconds === undefined || requests === 0 ? undefined : (cpuSeconds * 1e6) / requests

/**
 * What the requests/s goal of issues 22 and 25 (at least 0.5x a bare node:http server answering the
 * same bytes) allows the server to do per request on the machine it runs on. The load generator
 * shares the machine: a bare server that does nothing is limited by the client, and a server's CPU
 * per request costs it more than its own time (each answer wakes the client, and the client's
 * core sits idle meanwhile). So the ratio is not the CPU ratio; this curve says which work per
 * request it corresponds to.
 */
export const capacityBudget: Benchmark = {
  name: "capacity-budget",
  description: `What the requests/s goal of issues 22 and 25 (at least ${GOAL_RATIO}x bare node:http) allows per request on this machine: bare node:http servers answering the capacity benchmark's ${ITEMS}-item answers of variant A and of variant B all modes (origins searched) after ${WORK_MICROS.join(", ")} µs of CPU work per request (a spin until the process has used that much more CPU), at ${CONNECTIONS} connections (autocannon), beside the npm start server answering the same requests; requests/s and server CPU per request of each, their ratio to the bare server without work, the work per request at which the bare curve crosses ${GOAL_RATIO}x, and where the server's requests/s falls on that curve (the work per request it answers like).`,
  sizeUnit: "seconds of load per point",
  defaultSize: 2,
  smokeSize: 1,
  open: async (setup) => {
    setup.note(WARM_UP_NOTE)
    setup.note("The work of a curve's point is CPU time, not wall time: a spin that is preempted still does all of it. The points are measured one after the other, the server first; the machine's other load moves them all.")
    const kinds = capacityRequests()
    const cases = KINDS.map((id) => {
      const kind = kinds.find((k) => k.id === id)
      if (kind === undefined) throw new BenchmarkFailure(`no capacity request kind ${id}`)
      const bodyText = JSON.stringify(kind.body(ITEMS))
      const bodyFile = join(tmpdir(), `retail-bench-budget-${process.pid}-${id}.json`)
      writeFileSync(bodyFile, bodyText)
      return { label: `${kind.label}, ${ITEMS} items`, id, kind, bodyText, bodyFile }
    })
    const headers = { "content-type": "application/json", authorization: `Bearer ${BENCH_CAPACITY_KEY}` }
    let server: ServerHandle | undefined
    let bare: BareServer | undefined
    const close = async () => {
      await server?.stop()
      await bare?.stop()
      for (const c of cases) rmSync(c.bodyFile, { force: true })
    }
    try {
      server = await startServer({ RUN_WORKERS: "false" }, setup.progress)
      const answers: Record<string, string> = {}
      for (const c of cases) {
        const answer = await post(`${server.url}${c.kind.path}`, c.bodyText, headers)
        if (answer.status !== 200) throw new BenchmarkFailure(`${c.label}: answered ${answer.status} ${answer.text.slice(0, 300)}`)
        const wrong = c.kind.wrongAnswer(answer.text, ITEMS)
        if (wrong !== undefined) throw new BenchmarkFailure(`${c.label}: not the expected answer: ${wrong}`)
        for (const work of WORK_MICROS) answers[`/busy/${work}/${c.id}`] = answer.text
      }
      bare = await startBareServer(answers)
    } catch (error) {
      await close()
      throw error
    }
    const target = server
    const limit = bare

    const measure = async (pid: number, options: LoadOptions): Promise<Measured> => {
      await warmUp(options)
      const { result, cpuSeconds } = await cpuOfDuring(pid, () => autocannon(options))
      return { load: result, cpuMicros: cpuMicrosPer(cpuSeconds, result.requests) }
    }

    const run = async (): Promise<ReadonlyArray<Figure>> => {
      const figures: Array<Figure> = []
      for (const c of cases) {
        const load = {
          connections: CONNECTIONS,
          seconds: setup.size,
          method: "POST" as const,
          headers,
          bodyFile: c.bodyFile,
          // Smoke: enough requests that the work spun outweighs the 64 connections' set-up in the CPU counted.
          ...(setup.scale === "smoke" ? { amount: CONNECTIONS * 16 } : {})
        }
        const served = await withServerLog(target, () => measure(target.pid, { ...load, url: `${target.url}${c.kind.path}` }))
        const curve: Array<{ readonly work: number } & Measured> = []
        for (const work of WORK_MICROS) curve.push({ work, ...await measure(limit.pid, { ...load, url: `${limit.url}/busy/${work}/${c.id}` }) })
        const [idle] = curve
        if (idle === undefined) throw new BenchmarkFailure("no bare point")
        const bareName = "bare node:http, same answer, no work, same run"
        const ratios: ReadonlyArray<WorkPoint> = curve.map((p) => ({ workMicros: p.work, value: p.load.requestsPerSecond / idle.load.requestsPerSecond }))
        const budget = workAt(ratios, GOAL_RATIO)
        const serverLike = workAt(ratios, served.load.requestsPerSecond / idle.load.requestsPerSecond)
        setup.progress(`${c.label}: server ${served.load.requestsPerSecond.toFixed(0)} req/s; bare ${curve.map((p) => `+${p.work} µs ${p.load.requestsPerSecond.toFixed(0)}`).join(", ")}; ${GOAL_RATIO}x at ${budget?.toFixed(1) ?? "?"} µs, the server like ${serverLike?.toFixed(1) ?? "?"} µs`)
        figures.push(figure(`${c.label}: requests/s, npm start server`, "req/s", served.load.requestsPerSecond, {
          limit: { name: bareName, sample: idle.load.requestsPerSecond }
        }))
        if (served.cpuMicros !== undefined && idle.cpuMicros !== undefined) {
          figures.push(figure(`${c.label}: server CPU per request (all threads, /proc), npm start server`, "µs", served.cpuMicros, {
            better: "lower",
            limit: { name: bareName, sample: idle.cpuMicros }
          }))
        }
        for (const point of curve) {
          figures.push(figure(`${c.label}: requests/s, bare node:http + ${point.work} µs CPU per request`, "req/s", point.load.requestsPerSecond,
            point === idle ? {} : { limit: { name: bareName, sample: idle.load.requestsPerSecond } }))
          if (point.cpuMicros !== undefined) {
            figures.push(figure(`${c.label}: server CPU per request (/proc), bare node:http + ${point.work} µs CPU per request`, "µs", point.cpuMicros, { better: "lower" }))
          }
        }
        if (budget !== undefined) {
          figures.push(figure(`${c.label}: CPU work per request at which the bare curve reaches ${GOAL_RATIO}x of no work (issues 22 and 25's requests/s goal)`, "µs", budget))
        }
        if (serverLike !== undefined) {
          figures.push(figure(`${c.label}: the npm start server's requests/s on the bare curve: CPU work per request it answers like`, "µs", serverLike, { better: "lower" }))
        }
      }
      return figures
    }
    return { run, close }
  }
}
