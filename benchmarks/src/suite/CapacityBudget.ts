import { rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Benchmark, BenchmarkFailure, figure, type Figure } from "../Benchmark.ts"
import { autocannon, bodyFileLoad, type LoadOptions, type LoadResult, WARM_UP_NOTE, warmUp } from "../support/Autocannon.ts"
import { type BareServer, startBareServer } from "../support/BareServer.ts"
import { post } from "../support/Http.ts"
import { cpuMicrosPerRequest, cpuOfDuring } from "../support/ProcessCpu.ts"
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

const mean = (values: ReadonlyArray<number>) => values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length)

/** The mean of the values, or undefined when one is (no /proc). */
const meanOrUndefined = (values: ReadonlyArray<number | undefined>): number | undefined =>
  values.some((v) => v === undefined) || values.length === 0 ? undefined : mean(values.filter((v): v is number => v !== undefined))

/**
 * What the requests/s goal of issues 22 and 25 (at least 0.5x a bare node:http server answering the
 * same bytes) allows the server to do per request on the machine it runs on, with the load
 * generator on the same cores: the work per request, in CPU time, at which a bare server answering
 * the same bytes falls to half its rate. The figure is this machine's and this client's, not the
 * service's; the server's own figures beside it say how far it is.
 */
export const capacityBudget: Benchmark = {
  name: "capacity-budget",
  description: `What the requests/s goal of issues 22 and 25 (at least ${GOAL_RATIO}x bare node:http) allows per request on this machine: bare node:http servers answering the capacity benchmark's ${ITEMS}-item answers of variant A and of variant B all modes (origins searched) after ${WORK_MICROS.join(", ")} µs of CPU work per request (a spin until the process has used that much more CPU), at ${CONNECTIONS} connections (autocannon), beside the npm start server answering the same requests; requests/s and server CPU per request of each, their ratio to the bare server without work, the work per request at which the bare curve reaches ${GOAL_RATIO}x of no work, and where the server's requests/s falls on that curve (the work per request it answers like); both interpolated linearly in time per request between neighbouring points.`,
  sizeUnit: "seconds of load per point",
  defaultSize: 2,
  smokeSize: 1,
  open: async (setup) => {
    setup.note(WARM_UP_NOTE)
    setup.note("The work of a curve's point is CPU time, not wall time: a spin that is preempted still does all of it. The loads run one after the other: the server, the bare points from no work up, and the bare server without work again (the reference is the mean of its two loads); every other run in the reverse order. The machine's other load moves them all: read the budget beside its spread.")
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
      return { load: result, cpuMicros: cpuMicrosPerRequest(cpuSeconds, result.requests) }
    }

    const run = async (ctx: { readonly runIndex: number }): Promise<ReadonlyArray<Figure>> => {
      const figures: Array<Figure> = []
      for (const c of cases) {
        // Smoke: enough requests that the work spun outweighs the 64 connections' set-up in the CPU counted.
        const load = bodyFileLoad(setup, { connections: CONNECTIONS, headers, bodyFile: c.bodyFile, smokeRequests: CONNECTIONS * 16 })
        // The server, the bare points by work, and the bare server without work again at the end (its
        // two loads make the reference); reversed every other run, so that a drift of the machine's
        // load does not always bend the curve the same way.
        const steps: ReadonlyArray<number | "server"> = ["server", ...WORK_MICROS, 0]
        const measured = new Map<number | "server", Array<Measured>>()
        for (const step of ctx.runIndex % 2 === 0 ? steps : [...steps].reverse()) {
          const taken = step === "server"
            ? await withServerLog(target, () => measure(target.pid, { ...load, url: `${target.url}${c.kind.path}` }))
            : await measure(limit.pid, { ...load, url: `${limit.url}/busy/${step}/${c.id}` })
          measured.set(step, [...(measured.get(step) ?? []), taken])
        }
        const [served] = measured.get("server") ?? []
        const idle = measured.get(0) ?? []
        if (served === undefined || idle.length === 0) throw new BenchmarkFailure("a point of the curve was not measured")
        const idleRate = mean(idle.map((m) => m.load.requestsPerSecond))
        const idleCpu = meanOrUndefined(idle.map((m) => m.cpuMicros))
        const curve: ReadonlyArray<WorkPoint> = WORK_MICROS.map((work) => ({
          workMicros: work,
          slowdown: work === 0 ? 1 : idleRate / mean((measured.get(work) ?? []).map((m) => m.load.requestsPerSecond))
        }))
        const budget = workAt(curve, 1 / GOAL_RATIO)
        const serverLike = workAt(curve, idleRate / served.load.requestsPerSecond)
        setup.progress(`${c.label}: server ${served.load.requestsPerSecond.toFixed(0)} req/s; bare ${WORK_MICROS.map((work) => `+${work} µs ${(idleRate / (curve.find((p) => p.workMicros === work)?.slowdown ?? 1)).toFixed(0)}`).join(", ")}; ${GOAL_RATIO}x at ${budget?.toFixed(1) ?? "?"} µs, the server like ${serverLike?.toFixed(1) ?? "?"} µs`)
        const bareName = "bare node:http, same answer, no work, same run (mean of two loads)"
        figures.push(figure(`${c.label}: requests/s, npm start server`, "req/s", served.load.requestsPerSecond, {
          limit: { name: bareName, sample: idleRate }
        }))
        if (served.cpuMicros !== undefined && idleCpu !== undefined) {
          figures.push(figure(`${c.label}: server CPU per request (/proc), npm start server`, "µs", served.cpuMicros, {
            better: "lower",
            limit: { name: bareName, sample: idleCpu }
          }))
        }
        for (const work of WORK_MICROS) {
          const points = measured.get(work) ?? []
          const rate = mean(points.map((m) => m.load.requestsPerSecond))
          const cpu = meanOrUndefined(points.map((m) => m.cpuMicros))
          figures.push(figure(`${c.label}: requests/s, bare node:http + ${work} µs CPU per request`, "req/s", rate,
            work === 0 ? {} : { limit: { name: bareName, sample: idleRate } }))
          if (cpu !== undefined) {
            figures.push(figure(`${c.label}: server CPU per request (/proc), bare node:http + ${work} µs CPU per request`, "µs", cpu, { better: "lower" }))
          }
        }
        if (budget !== undefined) {
          figures.push(figure(`${c.label}: CPU work per request at which the bare curve reaches ${GOAL_RATIO}x of no work (interpolated; issues 22 and 25's requests/s goal)`, "µs", budget))
        }
        if (serverLike !== undefined) {
          figures.push(figure(`${c.label}: the npm start server's requests/s on the bare curve: CPU work per request it answers like (interpolated)`, "µs", serverLike, { better: "lower" }))
        }
      }
      return figures
    }
    return { run, close }
  }
}
