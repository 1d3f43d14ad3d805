import { writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ensureInputs } from "../../parsers/generate.ts"
import { type Benchmark, BenchmarkFailure, figure, type Figure } from "../Benchmark.ts"
import { autocannon } from "../support/Autocannon.ts"
import { acceptedLoad, post } from "../support/Http.ts"
import { type ServerHandle, startServer, withServerLog } from "../support/ServerProcess.ts"
import { BENCH_CAPACITY_KEY, mintToken, runTag } from "../support/Tokens.ts"
import { uploadFiles } from "../support/Upload.ts"
import { variantA } from "./Capacity.ts"

const CONNECTIONS = 64
const CAPACITY_SECONDS = 2
const ITEMS = 5
/** Issue 24: with metrics on (and tracing off), within 5% of the same build with metrics disabled. */
const WITHIN_5_PERCENT = { on: "ratio", atLeast: 0.95, source: "issue 24: metrics cost at most 5%" } as const

interface Measured {
  readonly capacityRequestsPerSecond: number
  readonly handleJsonMegabytesPerSecond: number
}

export const metricsOverhead: Benchmark = {
  name: "metrics-overhead",
  description: `The cost of metrics: two servers of the same build, METRICS_ENABLED=true and false, in the same run and interleaved (which goes first alternates by run): POST /v1/delivery/capacity (variant A, ${ITEMS} items, ${CONNECTIONS} connections, ${CAPACITY_SECONDS} s, autocannon) and POST /v1/handle-json (the handle-json file, first byte to the answer); RUN_WORKERS=false.`,
  sizeUnit: "products in the /handle-json file",
  defaultSize: 50_000,
  smokeSize: 300,
  open: async (setup) => {
    setup.progress(`generating ${setup.size} products (cached in the OS temp dir)`)
    const files = await ensureInputs(setup.size)
    const kind = variantA()
    const bodyText = JSON.stringify(kind.body(ITEMS))
    const bodyFile = join(tmpdir(), `retail-bench-metrics-overhead-${ITEMS}.json`)
    writeFileSync(bodyFile, bodyText)
    const headers = { "content-type": "application/json", authorization: `Bearer ${BENCH_CAPACITY_KEY}` }
    /** Fresh servers each run: with the in-process queue (no REDIS_URL) each holds what it was sent, unconsumed (RUN_WORKERS=false). */
    const startBoth = async (): Promise<ReadonlyArray<readonly [enabled: boolean, ServerHandle]>> => {
      const servers: Array<readonly [enabled: boolean, ServerHandle]> = []
      try {
        for (const enabled of [true, false]) {
          const server = await startServer({ RUN_WORKERS: "false", METRICS_ENABLED: String(enabled), METRICS_PUBLIC: "true" }, setup.progress)
          servers.push([enabled, server])
          const answer = await post(`${server.url}${kind.path}`, bodyText, headers)
          const wrong = answer.status === 200 ? kind.wrongAnswer(answer.text, ITEMS) : `answered ${answer.status} ${answer.text.slice(0, 300)}`
          if (wrong !== undefined) throw new BenchmarkFailure(`METRICS_ENABLED=${enabled}: not the expected capacity answer: ${wrong}`)
          const metrics = await fetch(`${server.url}/metrics`).then((response) => response.status, () => 0)
          if (metrics !== (enabled ? 200 : 404)) throw new BenchmarkFailure(`METRICS_ENABLED=${enabled}: GET /metrics answered ${metrics}`)
        }
        return servers
      } catch (error) {
        for (const [, server] of servers) await server.stop()
        throw error
      }
    }

    const measure = async (server: ServerHandle): Promise<Measured> => {
      const amount = setup.scale === "smoke" ? { amount: CONNECTIONS * 4 } : {}
      const load = await withServerLog(server, () =>
        autocannon({ url: `${server.url}${kind.path}`, connections: CONNECTIONS, seconds: CAPACITY_SECONDS, method: "POST", headers, bodyFile, ...amount }))
      const token = await mintToken(`BENCH-${runTag()}`)
      const upload = await uploadFiles(`${server.url}/v1/handle-json`, token, [{ name: "productsJson", file: files.json, contentType: "application/json" }])
      acceptedLoad({ status: upload.status, text: upload.body }, "POST /v1/handle-json")
      return { capacityRequestsPerSecond: load.requestsPerSecond, handleJsonMegabytesPerSecond: upload.bytes / 1e6 / upload.seconds }
    }

    const run = async (ctx: { readonly runIndex: number }): Promise<ReadonlyArray<Figure>> => {
      const servers = await startBoth()
      const results = new Map<boolean, Measured>()
      try {
        for (const [enabled, server] of ctx.runIndex % 2 === 0 ? servers : [...servers].reverse()) results.set(enabled, await measure(server))
      } finally {
        for (const [, server] of servers) {
          await server.dropPublished()
          await server.stop()
        }
      }
      const on = results.get(true)
      const off = results.get(false)
      if (on === undefined || off === undefined) throw new BenchmarkFailure("a server was not measured")
      setup.progress(
        `capacity ${on.capacityRequestsPerSecond.toFixed(0)} req/s on, ${off.capacityRequestsPerSecond.toFixed(0)} off; ` +
          `handle-json ${on.handleJsonMegabytesPerSecond.toFixed(1)} MB/s on, ${off.handleJsonMegabytesPerSecond.toFixed(1)} off`
      )
      return [
        figure(`capacity variant A, ${ITEMS} items: requests/s, METRICS_ENABLED=true`, "req/s", on.capacityRequestsPerSecond, {
          limit: { name: "the same, METRICS_ENABLED=false, same run", sample: off.capacityRequestsPerSecond },
          goal: WITHIN_5_PERCENT
        }),
        figure("/v1/handle-json MB/s, first byte to the answer, METRICS_ENABLED=true", "MB/s", on.handleJsonMegabytesPerSecond, {
          limit: { name: "the same, METRICS_ENABLED=false, same run", sample: off.handleJsonMegabytesPerSecond },
          goal: WITHIN_5_PERCENT
        })
      ]
    }
    return { run, close: async () => undefined }
  }
}
