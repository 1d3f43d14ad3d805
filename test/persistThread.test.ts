import { afterAll, describe, expect, it, layer } from "@effect/vitest"
import { sampleProducts } from "@retail/testkit"
import { Context, Effect, Layer } from "effect"
import type { HttpServer } from "effect/http"
import { SqlClient } from "effect/sql"
import { chmodSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Worker } from "node:worker_threads"
import { eventually, postJson } from "./support/Http.ts"
import { loadView, productCounts } from "./support/Loads.ts"
import { scrape } from "./support/Prometheus.ts"
import { mintToken, TestServer } from "./support/TestServer.ts"

// A thread reaches a database server, not the in-memory PGlite: without DATABASE_URL, the embedded
// PostgreSQL server in a folder of this file's own (as root it runs as `postgres`, who must pass through it).
const folder = mkdtempSync(join(tmpdir(), "persist-thread-"))
chmodSync(folder, 0o755)
afterAll(() => rmSync(folder, { recursive: true, force: true }))
const database = process.env["DATABASE_URL"] ? {} : { DATA_DIR: join(folder, "postgres") }

const PRODUCTS = 3000
const BLOCKED_MS = 2000

/** Holds the event loop's thread, as a long synchronous piece of work would; the window it held it, in epoch milliseconds. */
const blockEventLoop = (ms: number) =>
  Effect.sync(() => {
    const from = Date.now()
    while (Date.now() - from < ms) {
      // busy: nothing else runs on this thread meanwhile
    }
    return { from, to: Date.now() }
  })

/**
 * Publishes a load of small batches, then holds the event loop: the batches whose transaction began
 * (load_batches.recorded_at, PostgreSQL's now()) while it was held were persisted by another thread.
 */
const batchesPersistedWhileBlocked = (server: Context.Context<HttpServer.HttpServer | SqlClient.SqlClient>) =>
  Effect.gen(function*() {
    const token = yield* mintToken()
    const products = sampleProducts(PRODUCTS, { prefix: `PT-${crypto.randomUUID().slice(0, 8)}-` })
    const response = yield* postJson("/v1/load-products", { products }, token)
    expect(response.status, response.text).toBe(200)
    const { processCode } = response.json() as { processCode: string }
    const { from, to } = yield* blockEventLoop(BLOCKED_MS)
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ batches: string }>`
      SELECT count(*)::text AS batches FROM load_batches
      WHERE process_code = ${processCode} AND recorded_at > to_timestamp(${from / 1000}) AND recorded_at < to_timestamp(${to / 1000})`.pipe(Effect.orDie)
    const view = yield* eventually(loadView(processCode, token), (v) => v.status === "COMPLETED")
    expect(view.totals).toMatchObject({ accepted: PRODUCTS, persisted: PRODUCTS })
    return Number(row?.batches ?? "0")
  }).pipe(Effect.provide(server))

/** The batch workers' threads this process started, in order: each Worker that said Ready (PersistThread.ts), and when. */
const persistThreads: Array<{ readonly worker: Worker; readonly readyAt: number }> = []
const watchWorker = (worker: Worker) =>
  worker.on("message", (message: unknown) => {
    if (typeof message === "object" && message !== null && "_tag" in message && message._tag === "Ready") persistThreads.push({ worker, readyAt: Date.now() })
  })
process.on("worker", watchWorker)
afterAll(() => process.off("worker", watchWorker))

/** Ends the newest batch workers' thread where it stands, as a crash would (its batch in flight is not acked); when. */
const killPersistThread = Effect.promise(async () => {
  const newest = persistThreads.at(-1)
  if (newest === undefined) throw new Error("no batch workers' thread has started")
  const at = Date.now()
  await newest.worker.terminate()
  return at
})

/** The next thread after the `count` started so far, once it said Ready. */
const nextThreadReady = (count: number) =>
  Effect.map(eventually(Effect.sync(() => persistThreads.length), (started) => started > count, 30_000), () => persistThreads[count]!)

const loadOf = (products: number, token: string) =>
  Effect.gen(function*() {
    const prefix = `PT-${crypto.randomUUID().slice(0, 8)}-`
    const response = yield* postJson("/v1/load-products", { products: sampleProducts(products, { prefix }) }, token)
    expect(response.status, response.text).toBe(200)
    return { prefix, processCode: (response.json() as { processCode: string }).processCode }
  })

describe("the batch workers' thread (PERSIST_THREAD)", () => {
  layer(TestServer({ ...database, PRODUCT_BATCH_SIZE: "5" }), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("by default the workers persist on a thread of their own: batches are persisted while the event loop is held, paced by it, and their metrics reach /metrics", () =>
      Effect.gen(function*() {
        const server = yield* Effect.context<HttpServer.HttpServer | SqlClient.SqlClient>()
        const before = yield* scrape
        const persisted = yield* batchesPersistedWhileBlocked(server)
        expect(persisted).toBeGreaterThan(0)
        // Counted by the thread, served by the event loop's /metrics.
        const after = yield* eventually(scrape, (now) => now.value("upload_products_persisted_total", { source: "LOAD_PRODUCTS" }) - before.value("upload_products_persisted_total", { source: "LOAD_PRODUCTS" }) >= PRODUCTS)
        const delta = (name: string, labels: Readonly<Record<string, string>>) => after.value(name, labels) - before.value(name, labels)
        expect(delta("upload_products_persisted_total", { source: "LOAD_PRODUCTS" })).toBe(PRODUCTS)
        expect(delta("store_batch_persist_duration_seconds", { outcome: "persisted" })).toBe(PRODUCTS / 5)
        // While the event loop was held its pings went unanswered: the thread held batches
        // (PERSIST_YIELD_LAG_MS), each for about PERSIST_YIELD_MAX_MS (300 ms; more when the thread
        // itself waits for a core), far less than the 2 s the event loop was held, and went on persisting.
        const paced = delta("upload_persist_paced_batches_total", {})
        expect(paced).toBeGreaterThan(0)
        expect(delta("upload_persist_paced_seconds_total", {}) / paced).toBeLessThan(1)
      }))

    it.effect("a thread that dies is started again a second later and persists every load: the one it was persisting and one accepted while none ran, each product once", () =>
      Effect.gen(function*() {
        const token = yield* mintToken()
        const first = yield* nextThreadReady(0)
        // Killed while it persists a load of 200 batches; a load is accepted while no thread runs.
        const during = yield* loadOf(1000, token)
        yield* eventually(Effect.map(productCounts(during.prefix), (counts) => Number(counts?.products)), (stored) => stored > 0, 30_000)
        const killed = yield* killPersistThread
        const after = yield* loadOf(200, token)
        const second = yield* nextThreadReady(1)
        expect(second.worker).not.toBe(first.worker)
        // FIRST_RESTART (the waits after that: ThreadRestarts.test.ts, on a TestClock).
        expect(second.readyAt - killed).toBeGreaterThanOrEqual(1000)
        for (const [load, products] of [[during, 1000], [after, 200]] as const) {
          const view = yield* eventually(loadView(load.processCode, token), (v) => v.status === "COMPLETED", 60_000)
          expect(view.totals).toMatchObject({ accepted: products, persisted: products, failed: 0 })
          expect(yield* productCounts(load.prefix)).toMatchObject({ products: String(products) })
        }
      }))
  })

  it.live("PERSIST_THREAD=false: the workers share the event loop, and nothing is persisted while it is held", () =>
    Effect.gen(function*() {
      const server = yield* Layer.build(TestServer({ ...database, PRODUCT_BATCH_SIZE: "5", PERSIST_THREAD: "false" }))
      expect(yield* batchesPersistedWhileBlocked(server)).toBe(0)
    }), 120_000)
})
