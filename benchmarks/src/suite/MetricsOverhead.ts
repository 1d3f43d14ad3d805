import { type OtlpSink, startOtlpSink } from "@retail/testkit"
import { writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ensureInputs } from "../../parsers/generate.ts"
import { type Benchmark, BenchmarkFailure, figure, type Figure } from "../Benchmark.ts"
import { autocannon } from "../support/Autocannon.ts"
import { acceptedLoad, post } from "../support/Http.ts"
import { cpuOfDuring } from "../support/ProcessCpu.ts"
import { type ServerHandle, startServer, withServerLog } from "../support/ServerProcess.ts"
import { BENCH_CAPACITY_KEY, mintToken, runTag } from "../support/Tokens.ts"
import { uploadFiles } from "../support/Upload.ts"
import { variantA } from "./Capacity.ts"
import { productsBody } from "./LoadProducts.ts"

const CONNECTIONS = 64
const CAPACITY_SECONDS = 6
const ITEMS = 5
/** /v1/load-products: one batch's worth of products a request, a few connections (the path with Effect's request and SQL spans). */
const LOAD_PRODUCTS = { products: 250, connections: 8, seconds: 2 } as const
/** Issue 24: with metrics on (and tracing off), within 5% of the same build with metrics disabled. */
const WITHIN_5_PERCENT = { on: "ratio", atLeast: 0.95, source: "issue 24: metrics cost at most 5%" } as const
/** Issue 24: tracing on at 1% sampling costs at most 5% of throughput. */
const TRACING_WITHIN_5_PERCENT = { on: "ratio", atLeast: 0.95, source: "issue 24: tracing at 1% sampling costs at most 5%" } as const
/** The same bound on the server's CPU per request, which other work on the machine disturbs less than requests/s. */
const CPU_WITHIN_5_PERCENT = (what: string) => ({ on: "ratio", atMost: 1.05, source: `issue 24: ${what} costs at most 5%` }) as const
const SAMPLE_RATIO = "0.01"
/**
 * Capacity requests sent to each server before its measured load: fresh servers each run, and the
 * first few thousand requests of a process run cold code (the JIT, and with tracing the span and
 * export paths), which a 2 s window would count as the steady cost.
 */
const WARM_UP_REQUESTS = 20_000
/** The OTLP exporter sends every 5 s (or each 1000 spans): the check request's span is there within that. */
const FIRST_EXPORT_TIMEOUT_MS = 15_000

/** The three servers of a run: the default build (metrics on, tracing off), metrics off, and tracing on at 1% into the run's OTLP sink. */
type Variant = "default" | "metricsOff" | "tracing"
const VARIANTS: ReadonlyArray<Variant> = ["default", "metricsOff", "tracing"]

const noSpan = (traceId: string, sink: OtlpSink, within: string) =>
  `the tracing server exported no span of its sampled capacity request (trace ${traceId})${within}; the OTLP sink received ${sink.spans()} span(s)`

interface Measured {
  readonly capacityRequestsPerSecond: number
  /** The server's CPU (all threads) over the capacity load, per request; undefined where there is no /proc. */
  readonly capacityCpuMicros: number | undefined
  readonly handleJsonMegabytesPerSecond: number
  readonly loadProductsRequestsPerSecond: number
}

/** A W3C traceparent with the sampled flag: parent-based sampling keeps its request whatever the ratio. */
const sampledTraceparent = (): { readonly traceId: string; readonly header: string } => {
  const hex = (bytes: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex")
  const traceId = hex(16)
  return { traceId, header: `00-${traceId}-${hex(8)}-01` }
}

export const metricsOverhead: Benchmark = {
  name: "metrics-overhead",
  description: `The cost of metrics and of tracing: three servers of the same build in the same run, measured in turn (which goes first rotates by run): the default (METRICS_ENABLED=true, tracing off), METRICS_ENABLED=false, and tracing on (OTEL_TRACES_SAMPLER_ARG=${SAMPLE_RATIO}, spans exported over OTLP/HTTP to a sink the benchmark runs, which must receive them). Each: POST /v1/delivery/capacity (variant A, ${ITEMS} items, ${CONNECTIONS} connections, ${CAPACITY_SECONDS} s, autocannon), POST /v1/handle-json (the handle-json file, first byte to the answer) and POST /v1/load-products (${LOAD_PRODUCTS.products} products a request, ${LOAD_PRODUCTS.connections} connections, ${LOAD_PRODUCTS.seconds} s); RUN_WORKERS=false. Each server gets ${WARM_UP_REQUESTS} capacity requests before it is measured, and the measuring starts once the tracing server's first export reached the sink.`,
  sizeUnit: "products in the /handle-json file",
  defaultSize: 50_000,
  smokeSize: 300,
  // Five runs: a few per cent is the difference looked for, and one run of the capacity part varies more than that.
  defaultRuns: 5,
  open: async (setup) => {
    setup.progress(`generating ${setup.size} products (cached in the OS temp dir)`)
    const files = await ensureInputs(setup.size)
    const kind = variantA()
    const bodyText = JSON.stringify(kind.body(ITEMS))
    const bodyFile = join(tmpdir(), `retail-bench-metrics-overhead-${ITEMS}.json`)
    writeFileSync(bodyFile, bodyText)
    const productsFile = join(tmpdir(), `retail-bench-metrics-overhead-products-${LOAD_PRODUCTS.products}.json`)
    writeFileSync(productsFile, productsBody(LOAD_PRODUCTS.products))
    const headers = { "content-type": "application/json", authorization: `Bearer ${BENCH_CAPACITY_KEY}` }
    const settingsOf = (variant: Variant, sink: OtlpSink): Readonly<Record<string, string>> => ({
      RUN_WORKERS: "false",
      METRICS_PUBLIC: "true",
      METRICS_ENABLED: String(variant !== "metricsOff"),
      // Empty is unset: a runner's own OTEL_* settings must not turn tracing on in the other two.
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "",
      OTEL_EXPORTER_OTLP_ENDPOINT: variant === "tracing" ? sink.url : "",
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: SAMPLE_RATIO
    })
    /** Fresh servers each run: with the in-process queue (no REDIS_URL) each holds what it was sent, unconsumed (RUN_WORKERS=false). */
    const startAll = async (sink: OtlpSink, traced: { readonly traceId: string; readonly header: string }): Promise<ReadonlyArray<readonly [Variant, ServerHandle]>> => {
      const servers: Array<readonly [Variant, ServerHandle]> = []
      try {
        for (const variant of VARIANTS) {
          const server = await startServer(settingsOf(variant, sink), setup.progress)
          servers.push([variant, server])
          const answer = await post(`${server.url}${kind.path}`, bodyText, variant === "tracing" ? { ...headers, traceparent: traced.header } : headers)
          const wrong = answer.status === 200 ? kind.wrongAnswer(answer.text, ITEMS) : `answered ${answer.status} ${answer.text.slice(0, 300)}`
          if (wrong !== undefined) throw new BenchmarkFailure(`${variant} server: not the expected capacity answer: ${wrong}`)
          const metrics = await fetch(`${server.url}/metrics`).then((response) => response.status, () => 0)
          if (metrics !== (variant === "metricsOff" ? 404 : 200)) throw new BenchmarkFailure(`${variant} server: GET /metrics answered ${metrics}`)
        }
        // Measured only once the tracing server's export path has run: its span of the check request received.
        // Smoke runs do not wait for it (up to the exporter's 5 s): they check it after the servers stopped.
        const deadline = Date.now() + FIRST_EXPORT_TIMEOUT_MS
        while (setup.scale === "full" && !sink.traceIds().has(traced.traceId)) {
          if (Date.now() > deadline) throw new BenchmarkFailure(noSpan(traced.traceId, sink, ` within ${FIRST_EXPORT_TIMEOUT_MS / 1000} s`))
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
        return servers
      } catch (error) {
        for (const [, server] of servers) await server.stop()
        throw error
      }
    }

    const measure = async (server: ServerHandle): Promise<Measured> => {
      const smoke = setup.scale === "smoke"
      const capacityLoad = { url: `${server.url}${kind.path}`, connections: CONNECTIONS, seconds: CAPACITY_SECONDS, method: "POST", headers, bodyFile } as const
      // Smoke runs only show that it works: no warm-up.
      if (!smoke) await withServerLog(server, () => autocannon({ ...capacityLoad, amount: WARM_UP_REQUESTS }))
      const { result: load, cpuSeconds } = await cpuOfDuring(server.pid, () =>
        withServerLog(server, () =>
          autocannon({ ...capacityLoad, ...(smoke ? { amount: CONNECTIONS * 4 } : {}) })))
      const token = await mintToken(`BENCH-${runTag()}`)
      const upload = await uploadFiles(`${server.url}/v1/handle-json`, token, [{ name: "productsJson", file: files.json, contentType: "application/json" }])
      acceptedLoad({ status: upload.status, text: upload.body }, "POST /v1/handle-json")
      const loads = await withServerLog(server, () =>
        autocannon({
          url: `${server.url}/v1/load-products`,
          connections: LOAD_PRODUCTS.connections,
          seconds: LOAD_PRODUCTS.seconds,
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
          bodyFile: productsFile,
          ...(smoke ? { amount: LOAD_PRODUCTS.connections * 2 } : {})
        }))
      return {
        capacityRequestsPerSecond: load.requestsPerSecond,
        capacityCpuMicros: cpuSeconds === undefined || load.requests === 0 ? undefined : (cpuSeconds / load.requests) * 1e6,
        handleJsonMegabytesPerSecond: upload.bytes / 1e6 / upload.seconds,
        loadProductsRequestsPerSecond: loads.requestsPerSecond
      }
    }

    const run = async (ctx: { readonly runIndex: number }): Promise<ReadonlyArray<Figure>> => {
      const sink = await startOtlpSink()
      const traced = sampledTraceparent()
      const results = new Map<Variant, Measured>()
      try {
        const servers = await startAll(sink, traced)
        try {
          const shift = ctx.runIndex % servers.length
          for (const [variant, server] of [...servers.slice(shift), ...servers.slice(0, shift)]) results.set(variant, await measure(server))
        } finally {
          // Stopped before the sink is read: the tracing server flushes its last spans on shutdown.
          await Promise.all(servers.map(async ([, server]) => {
            await server.dropPublished()
            await server.stop()
          }))
        }
      } finally {
        await sink.close()
      }
      // The server flushed its spans on shutdown.
      if (!sink.traceIds().has(traced.traceId)) throw new BenchmarkFailure(noSpan(traced.traceId, sink, ""))
      const on = results.get("default")
      const off = results.get("metricsOff")
      const tracing = results.get("tracing")
      if (on === undefined || off === undefined || tracing === undefined) throw new BenchmarkFailure("a server was not measured")
      setup.progress(
        `capacity ${on.capacityRequestsPerSecond.toFixed(0)} req/s default, ${off.capacityRequestsPerSecond.toFixed(0)} metrics off, ${tracing.capacityRequestsPerSecond.toFixed(0)} tracing; ` +
          `handle-json ${on.handleJsonMegabytesPerSecond.toFixed(1)} / ${off.handleJsonMegabytesPerSecond.toFixed(1)} / ${tracing.handleJsonMegabytesPerSecond.toFixed(1)} MB/s; ` +
          `load-products ${on.loadProductsRequestsPerSecond.toFixed(1)} / ${off.loadProductsRequestsPerSecond.toFixed(1)} / ${tracing.loadProductsRequestsPerSecond.toFixed(1)} req/s; ` +
          `${sink.spans()} spans exported`
      )
      const metricsOffLimit = (sample: number) => ({ limit: { name: "the same, METRICS_ENABLED=false, same run", sample }, goal: WITHIN_5_PERCENT })
      const tracingOffLimit = (sample: number) => ({ limit: { name: "the same, default server (tracing off), same run", sample }, goal: TRACING_WITHIN_5_PERCENT })
      const TRACING = `tracing on at ${SAMPLE_RATIO}`
      return [
        figure(`capacity variant A, ${ITEMS} items: requests/s, METRICS_ENABLED=true`, "req/s", on.capacityRequestsPerSecond, metricsOffLimit(off.capacityRequestsPerSecond)),
        figure("/v1/handle-json MB/s, first byte to the answer, METRICS_ENABLED=true", "MB/s", on.handleJsonMegabytesPerSecond, metricsOffLimit(off.handleJsonMegabytesPerSecond)),
        figure("/v1/load-products requests/s, METRICS_ENABLED=true", "req/s", on.loadProductsRequestsPerSecond, metricsOffLimit(off.loadProductsRequestsPerSecond)),
        figure(`capacity variant A, ${ITEMS} items: requests/s, ${TRACING}`, "req/s", tracing.capacityRequestsPerSecond, tracingOffLimit(on.capacityRequestsPerSecond)),
        figure(`/v1/handle-json MB/s, first byte to the answer, ${TRACING}`, "MB/s", tracing.handleJsonMegabytesPerSecond, tracingOffLimit(on.handleJsonMegabytesPerSecond)),
        figure(`/v1/load-products requests/s, ${TRACING}`, "req/s", tracing.loadProductsRequestsPerSecond, tracingOffLimit(on.loadProductsRequestsPerSecond)),
        figure(`spans received by the OTLP sink from the server with ${TRACING}`, "spans", sink.spans()),
        ...(on.capacityCpuMicros === undefined || off.capacityCpuMicros === undefined || tracing.capacityCpuMicros === undefined ? [] : [
          figure(`capacity variant A, ${ITEMS} items: server CPU per request, METRICS_ENABLED=true`, "µs", on.capacityCpuMicros, {
            better: "lower",
            limit: { name: "the same, METRICS_ENABLED=false, same run", sample: off.capacityCpuMicros },
            goal: CPU_WITHIN_5_PERCENT("metrics")
          }),
          figure(`capacity variant A, ${ITEMS} items: server CPU per request, ${TRACING}`, "µs", tracing.capacityCpuMicros, {
            better: "lower",
            limit: { name: "the same, default server (tracing off), same run", sample: on.capacityCpuMicros },
            goal: CPU_WITHIN_5_PERCENT("tracing at 1% sampling")
          })
        ])
      ]
    }
    return { run, close: async () => undefined }
  }
}
