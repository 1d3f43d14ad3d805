import { describe, expect, layer } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { StreamQueue } from "@retail/queue"
import { sampleProduct, sampleProducts } from "@retail/testkit"
import { Effect } from "effect"
import { eventually, postJson, request } from "./support/Http.ts"
import { type LoadBody, loadView } from "./support/Loads.ts"
import { fileOf, formData } from "./support/Multipart.ts"
import { scrape } from "./support/Prometheus.ts"
import { mintToken, TestServer, TestSettings } from "./support/TestServer.ts"

const KEY = "test-metrics-key"
const run = crypto.randomUUID().slice(0, 8).toUpperCase()
const DAY_MS = 86_400_000
/** A Monday from 2028 on, one of 2000: runs against a real database take capacity on their own day. */
const monday = new Date(Date.UTC(2028, 0, 3) + 7 * DAY_MS * Math.floor(Math.random() * 2000)).toISOString().slice(0, 10)
const store = "TD-MIRAFLORES"

const pickup = {
  origin: store, entityType: "TD", skuCode: "SKU-CELULAR-A54", zone: "", dispatchType: "NORMAL", quantity: 1,
  destination: store, latitude: -12.12, longitude: -77.03, deliveryMode: "STORE_WITHDRAWAL", weight: 2,
  line: "TV", division: "ELECTRO", measurable: "UN"
}

interface Answer {
  readonly dispatchCode: string
  readonly route: string
  readonly pickingDate: string
  readonly deliveryTrace: ReadonlyArray<{ readonly deliveryDate: string; readonly details: ReadonlyArray<unknown> }>
}

const orderOf = (answer: Answer, orderId: string, units: number) => ({
  orderId,
  dispatchCode: answer.dispatchCode,
  route: answer.route,
  pickingDate: answer.pickingDate,
  details: answer.deliveryTrace[0]!.details,
  deliveryDate: answer.deliveryTrace[0]!.deliveryDate,
  units
})

describe("GET /metrics", () => {
  // Two products a batch: the loads below make several batches.
  layer(TestServer({ CAPACITY_API_KEYS: KEY, PRODUCT_BATCH_SIZE: "2" }), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("counts what one product load, one file load and one capacity request did", () =>
      Effect.gen(function*() {
        const settings = yield* TestSettings
        const stream = settings["PRODUCT_BATCHES_STREAM"]!
        const group = "product-writers"
        const token = yield* mintToken({ scope: "products:write products:read", company: "ACME" })
        const before = yield* scrape

        // /v1/load-products: 3 products, one invalid (no hierarchies): 2 accepted, one batch.
        const invalid = { ...sampleProduct(9, { prefix: `MLP${run}-` }), hierarchies: [] }
        const products = yield* postJson("/v1/load-products", { products: [...sampleProducts(2, { prefix: `MLP${run}-` }), invalid] }, token)
        expect(products.status).toBe(200)
        const productsCode = (products.json() as LoadBody).processCode

        // /v1/handle-json: 5 products, three batches.
        const file = JSON.stringify({ products: sampleProducts(5, { prefix: `MJF${run}-` }) })
        const form = formData([["productsJson", fileOf(file, "application/json")]])
        const formBytes = (yield* Effect.promise(() => new Response(form).arrayBuffer())).byteLength
        const fileLoad = yield* request("/v1/handle-json", { token, body: form })
        expect(fileLoad.status).toBe(200)
        const fileCode = (fileLoad.json() as LoadBody).processCode

        // POST /v1/delivery/capacity through the fast lane, then one order taken and the same order id with other content refused.
        const offered = yield* postJson("/v1/delivery/capacity", { purchaseDate: monday, items: [pickup] }, KEY)
        expect(offered.status).toBe(200)
        const [answer] = offered.json() as ReadonlyArray<Answer>
        const orderId = `metrics-${run}`
        expect((yield* postJson("/v1/delivery/capacity/consumptions", orderOf(answer!, orderId, 1), KEY)).status).toBe(200)
        expect((yield* postJson("/v1/delivery/capacity/consumptions", orderOf(answer!, orderId, 2), KEY)).status).toBe(409)

        yield* eventually(loadView(productsCode, token), (view) => view.status === "COMPLETED_WITH_ERRORS")
        yield* eventually(loadView(fileCode, token), (view) => view.status === "COMPLETED")
        // A load is COMPLETED when its last batch commits; its worker acks (and deletes) the entry just after,
        // on a thread of its own by default (PERSIST_THREAD), so the backlog may take a moment to read empty.
        const after = yield* eventually(scrape, (now) => now.value("queue_stream_length", { stream }) === 0 && now.value("queue_pending_entries", { stream, group }) === 0)
        const delta = (name: string, labels: Readonly<Record<string, string>> = {}) => after.value(name, labels) - before.value(name, labels)

        // RED per route, the fast lane's included.
        expect(delta("http_requests_total", { route: "/v1/load-products", method: "POST", status: "200" })).toBe(1)
        expect(delta("http_requests_total", { route: "/v1/handle-json", method: "POST", status: "200" })).toBe(1)
        expect(delta("http_requests_total", { route: "/v1/delivery/capacity", method: "POST", status: "200" })).toBe(1)
        expect(delta("http_requests_total", { route: "/v1/delivery/capacity/consumptions", method: "POST", status: "409" })).toBe(1)
        expect(delta("http_requests_total", { route: "/v1/loads/:processCode", method: "GET" })).toBeGreaterThanOrEqual(2)
        expect(delta("http_request_duration_seconds", { route: "/v1/delivery/capacity", method: "POST" })).toBe(1)
        expect(after.family("http_request_duration_seconds")?.type).toBe("HISTOGRAM")

        // Upload: products by source, bytes of the file endpoint, loads by state, time to the final status.
        expect(delta("upload_products_received_total", { source: "LOAD_PRODUCTS" })).toBe(3)
        expect(delta("upload_products_accepted_total", { source: "LOAD_PRODUCTS" })).toBe(2)
        expect(delta("upload_products_failed_total", { source: "LOAD_PRODUCTS" })).toBe(1)
        expect(delta("upload_products_persisted_total", { source: "LOAD_PRODUCTS" })).toBe(2)
        expect(delta("upload_products_received_total", { source: "HANDLE_JSON" })).toBe(5)
        expect(delta("upload_products_accepted_total", { source: "HANDLE_JSON" })).toBe(5)
        expect(delta("upload_products_failed_total", { source: "HANDLE_JSON" })).toBe(0)
        expect(delta("upload_products_persisted_total", { source: "HANDLE_JSON" })).toBe(5)
        expect(delta("upload_file_bytes_read_total", { endpoint: "/v1/handle-json" })).toBe(formBytes)
        expect(delta("upload_loads_total", { state: "COMPLETED_WITH_ERRORS" })).toBe(1)
        expect(delta("upload_loads_total", { state: "COMPLETED" })).toBe(1)
        expect(delta("upload_load_duration_seconds", { source: "HANDLE_JSON", state: "COMPLETED" })).toBe(1)
        // Counted by the reconciler's pass (at start, then every LOAD_RECONCILE_INTERVAL_MS).
        expect(after.family("upload_loads_unfinished")?.type).toBe("GAUGE")

        // Queue: 1 + 3 batches published, delivered and persisted; nothing left behind.
        expect(delta("queue_published_entries_total", { stream })).toBe(4)
        expect(delta("queue_publish_duration_seconds", { stream })).toBe(2)
        expect(delta("queue_deliveries_total", { stream, group })).toBe(4)
        expect(after.value("queue_stream_length", { stream })).toBe(0)
        expect(after.value("queue_pending_entries", { stream, group })).toBe(0)
        expect(after.value("queue_consumer_lag", { stream, group })).toBe(0)
        expect(after.value("queue_oldest_pending_seconds", { stream, group })).toBe(0)
        expect(after.value("queue_dead_letter_length", { stream })).toBe(0)

        // Persistence: one transaction a batch, every product written.
        expect(delta("store_batch_persist_duration_seconds", { outcome: "persisted" })).toBe(4)
        expect(delta("store_rows_written_total", { table: "products" })).toBe(7)

        // Capacity: the engine timed once, its plan cache asked, the two orders counted.
        expect(delta("capacity_engine_duration_seconds")).toBe(1)
        expect(delta("capacity_plan_cache_total")).toBeGreaterThan(0)
        expect(delta("capacity_orders_total", { outcome: "taken" })).toBe(1)
        expect(delta("capacity_orders_total", { outcome: "refused_conflict" })).toBe(1)

        // Process and threads.
        expect(after.value("process_resident_memory_bytes")).toBeGreaterThan(0)
        // GC is counted only with METRICS_GC=true (its observer costs the fast lane 7-10%).
        expect(after.family("nodejs_gc_runs_total")).toBeUndefined()
        expect(after.value("nodejs_heap_used_bytes")).toBeGreaterThan(0)
        expect(after.family("nodejs_eventloop_delay_seconds")?.metrics.map((m) => m.labels?.["quantile"])).toEqual(["0.5", "0.99", "1"])
        expect(delta("worker_pool_tasks_completed_total", { pool: "json-validation-thread" })).toBeGreaterThan(0)
      }))

    it.effect("a dead-lettered batch moves the dead-letter metrics", () =>
      Effect.gen(function*() {
        const stream = (yield* TestSettings)["PRODUCT_BATCHES_STREAM"]!
        const before = yield* scrape
        // An entry no worker can decode goes to the dead letters at its first delivery.
        yield* Effect.orDie((yield* StreamQueue).publish(stream, ["not a batch"]))
        // The counter moves when the worker has moved the entry; the length is read at a scrape, and a
        // read slower than the collectors' bound (a loaded CI machine) leaves the last value: wait for both.
        const moved = (name: string) => (now: typeof before) => now.value(name, { stream }) > before.value(name, { stream })
        const after = yield* eventually(scrape, (now) => moved("queue_dead_letters_total")(now) && moved("queue_dead_letter_length")(now))
        expect(after.value("queue_dead_letters_total", { stream }) - before.value("queue_dead_letters_total", { stream })).toBe(1)
        expect(after.value("queue_dead_letter_length", { stream }) - before.value("queue_dead_letter_length", { stream })).toBe(1)
        expect(after.value("queue_publish_failures_total", { stream })).toBe(0)
      }))

    it.effect("every metric the Grafana dashboard queries is one the server exposes or defines", () =>
      Effect.gen(function*() {
        const dashboard = JSON.parse(readFileSync(new URL("../deploy/grafana/dashboards/retail-logistics.json", import.meta.url), "utf8")) as {
          readonly panels: ReadonlyArray<{ readonly targets?: ReadonlyArray<{ readonly expr: string }> }>
        }
        // Metric names: what is left of an expression without its label lists, matchers, ranges and
        // functions (identifiers followed by "(").
        const queried = new Set(dashboard.panels.flatMap((panel) => panel.targets ?? []).flatMap((target) => {
          const bare = target.expr.replace(/\b(by|without)\s*\([^)]*\)/g, "").replace(/\{[^}]*\}|\[[^\]]*\]/g, "")
          return [...bare.matchAll(/\b([a-z_][a-z0-9_]*)\b(?!\s*\()/g)].map((match) => match[1] ?? "")
        }))
        // Exposed once a series exists (after the tests above), or defined by packages/metrics (a
        // family without a series yet, such as publish failures on a healthy queue).
        const exposed = new Set((yield* scrape).families.flatMap((family) => [family.name, `${family.name}_bucket`]))
        const metricsSource = ["Capacity", "Http", "Process", "Queue", "Store", "Upload", "WorkerPool"]
          .map((name) => readFileSync(new URL(`../packages/metrics/src/${name}Metrics.ts`, import.meta.url), "utf8"))
          .join("\n")
        const defined = (name: string) => metricsSource.includes(`"${name.replace(/_bucket$/, "")}"`)
        expect(queried.size).toBeGreaterThan(30)
        expect([...queried].filter((name) => !exposed.has(name) && !defined(name))).toEqual([])
        // The most of them are exposed after a load, a file load, a capacity request and orders.
        expect([...queried].filter((name) => exposed.has(name)).length).toBeGreaterThan(queried.size - 5)
      }))

    it.effect("is served on the internal listener only: the public one answers 404", () =>
      Effect.gen(function*() {
        expect((yield* request("/metrics")).status).toBe(404)
      }))
  })
})
