import { Scrape } from "@retail/testkit"
import { BenchmarkFailure, figure, type Figure } from "../Benchmark.ts"
import type { LoadResult } from "../support/Autocannon.ts"
import type { ServerHandle } from "../support/ServerProcess.ts"

/**
 * Issue 24: every figure the benchmark measures from the outside can be read from the server's
 * /metrics, and the two agree within 10% in one run. Each check is a figure computed from two
 * scrapes (before and after what was measured) with the outside figure as its limit, so the
 * report prints both and their ratio, and flags a ratio outside [0.9, 1.1].
 */
const AGREE = { on: "ratio", atLeast: 0.9, atMost: 1.1, source: "issue 24: /metrics agrees with the outside within 10%" } as const

/** Settings of a server whose /metrics the benchmark reads: on its public port, so no log line has to name the internal one. */
export const METRICS_ON_PUBLIC_PORT = { METRICS_PUBLIC: "true" } as const

/** Plans the server's cache answered over a load, % of those asked of it (capacity_plan_cache_total, scraped before and after). */
export const planReusePercent = (before: Scrape, after: Scrape): number => {
  const hits = after.value("capacity_plan_cache_total", { result: "hit" }) - before.value("capacity_plan_cache_total", { result: "hit" })
  const misses = after.value("capacity_plan_cache_total", { result: "miss" }) - before.value("capacity_plan_cache_total", { result: "miss" })
  return hits + misses === 0 ? 0 : (100 * hits) / (hits + misses)
}

/** Garbage collection between two scrapes, ms of one kind ("major" or "minor"; nodejs_gc_duration_seconds_total: only with METRICS_GC=true, else 0). */
export const gcMsOver = (before: Scrape, after: Scrape, kind: "major" | "minor"): number =>
  1000 * (after.value("nodejs_gc_duration_seconds_total", { kind }) - before.value("nodejs_gc_duration_seconds_total", { kind }))

/** The server's /metrics (started with METRICS_ON_PUBLIC_PORT), parsed. */
export const scrapeServer = async (server: ServerHandle): Promise<Scrape> => {
  const response = await fetch(`${server.url}/metrics`)
  const text = await response.text()
  if (response.status !== 200) throw new BenchmarkFailure(`GET /metrics answered ${response.status}: ${text.slice(0, 300)}`)
  return new Scrape(text)
}

const delta = (before: Scrape, after: Scrape, name: string, labels: Readonly<Record<string, string>> = {}) =>
  after.value(name, labels) - before.value(name, labels)

const deltaSum = (before: Scrape, after: Scrape, name: string, labels: Readonly<Record<string, string>> = {}) =>
  after.sum(name, labels) - before.sum(name, labels)

/**
 * One file load to COMPLETED, seen from /metrics. Load throughput: products persisted over the
 * load's own time from creation to COMPLETED (`upload_load_duration_seconds`, the server's clock).
 * Persist rate: `upload_products_persisted_total` over the window the benchmark measured (what
 * Prometheus' rate() gives over that window), beside the products the load reports persisted.
 */
export const loadFromMetrics = (
  label: string,
  before: Scrape,
  after: Scrape,
  outside: { readonly productsPerSecond: number; readonly seconds: number; readonly persisted: number }
): ReadonlyArray<Figure> => {
  const persisted = delta(before, after, "upload_products_persisted_total", { source: "HANDLE_JSON" })
  const loadSeconds = deltaSum(before, after, "upload_load_duration_seconds", { source: "HANDLE_JSON", state: "COMPLETED" })
  return [
    figure(`${label}: load throughput from /metrics (persisted / upload_load_duration_seconds)`, "products/s", loadSeconds > 0 ? persisted / loadSeconds : 0, {
      limit: { name: "products/s first byte to COMPLETED, measured outside", sample: outside.productsPerSecond },
      goal: AGREE
    }),
    figure(`${label}: persist rate from /metrics (upload_products_persisted_total over the measured window)`, "products/s", persisted / outside.seconds, {
      limit: { name: "products persisted by the load (GET /v1/loads) over the same window", sample: outside.persisted / outside.seconds },
      goal: AGREE
    })
  ]
}

/** One autocannon load of POST /v1/delivery/capacity, seen from /metrics: requests/s and mean latency. */
export const capacityFromMetrics = (label: string, before: Scrape, after: Scrape, measured: LoadResult): ReadonlyArray<Figure> => {
  // autocannon's requests/s is its 2xx answers over its duration: the same window.
  const seconds = measured.requests / measured.requestsPerSecond
  const route = { route: "/v1/delivery/capacity", method: "POST", status: "200" }
  const requests = delta(before, after, "http_requests_total", route)
  const timed = delta(before, after, "http_request_duration_seconds", { route: route.route, method: route.method })
  const latencySeconds = deltaSum(before, after, "http_request_duration_seconds", { route: route.route, method: route.method })
  return [
    figure(`${label}: requests/s from /metrics (http_requests_total over the load)`, "req/s", requests / seconds, {
      limit: { name: "autocannon requests/s", sample: measured.requestsPerSecond },
      goal: AGREE
    }),
    figure(`${label}: mean latency from /metrics (http_request_duration_seconds)`, "ms", timed > 0 ? (latencySeconds / timed) * 1000 : 0, {
      better: "lower",
      limit: { name: "autocannon mean latency (client side: connection queueing included)", sample: measured.mean },
      goal: AGREE
    })
  ]
}
