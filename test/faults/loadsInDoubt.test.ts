import { describe, expect, it } from "@effect/vitest"
import { sampleProducts } from "@retail/testkit"
import { Effect, Fiber, Schema } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { serverArgs } from "../support/ServerBundle.ts"
import { call, EMBEDDED, loadStatus, type LoadViewBody, startApp, token } from "./support/App.ts"
import { lab, testDir } from "./support/Lab.ts"
import { acceptedLoad, expectStoredExactly, finalViews } from "./support/Loads.ts"
import { withSql } from "./support/Postgres.ts"
import { spawnChild, stopTimed, waitUntil } from "./support/Processes.ts"
import { pendingEntries, redisCommand, streamLength } from "./support/Redis.ts"
import { holdLoadLocks, loadsOf, loadTotals } from "./support/Store.ts"
import { fileOf, publishingFileLoad, streamUpload } from "./support/Upload.ts"

/** Short leases, so that a dead owner is found within seconds (production: 30 s and 10 s). */
const FAST_RECONCILE = { LOAD_LEASE_MS: "3000", LOAD_RECONCILE_INTERVAL_MS: "500" } as const
/** LOAD_LEASE_MS + LOAD_RECONCILE_INTERVAL_MS, with room for a shared 2-core machine. */
const RECONCILE_BOUND_MS = 3_000 + 500 + 10_000


const Count = Schema.Array(Schema.Struct({ n: Schema.Number }))
const storedOfLoad = (url: string, processCode: string) =>
  withSql(url, (sql) =>
    sql`SELECT count(*)::int AS n FROM products WHERE process_code = ${processCode}::uuid`.pipe(
      Effect.flatMap(Schema.decodeUnknownEffect(Count)),
      Effect.map((rows) => rows[0]?.n ?? 0)
    ))

/** Waits for the load to be final and answers its view and how long that took. */
const finalTimed = (base: string, processCode: string, bearer: string) =>
  Effect.gen(function*() {
    const started = Date.now()
    const [view] = yield* finalViews(base, [processCode], bearer, "90 seconds")
    return { view: view as LoadViewBody, millis: Date.now() - started }
  })

/**
 * A server on the embedded database in `dir` (with `settings`), which has answered 200 to a
 * 20k-product file and is persisting it.
 */
const embeddedLoadPersisting = (dir: string, settings: Record<string, string>, prefix: string) =>
  Effect.gen(function*() {
    const first = yield* startApp("embedded-1", dir, settings, EMBEDDED)
    const bearer = yield* token("EMBEDDED")
    const products = sampleProducts(20_000, { prefix })
    const upload = yield* streamUpload({ url: `${first.base}/v1/handle-json`, bearer, part: "productsJson", content: fileOf(products), chunks: 1, pauseMs: 0 })
    expect(upload.status, upload.body).toBe(200)
    const code = (JSON.parse(upload.body) as { processCode: string }).processCode
    const during = yield* waitUntil("persisting", Effect.flatMap(loadStatus(first.base, code, bearer), (view) =>
      view.totals.persisted > 0 ? Effect.succeed(view) : Effect.fail(new Error("none yet"))))
    expect(during.totals.persisted, "the fault must come while persisting").toBeLessThan(products.length)
    return { first, bearer, products, code }
  })

describe("a load whose server or queue died is never left in doubt", () => {
  it.live("kill -9 while a file load is published: after a restart the load ends FAILED within the lease, with what was persisted counted, and nothing of it is left on the queue", () =>
    Effect.gen(function*() {
      const { dir, postgres, redis, names, connection } = yield* lab("kill-publishing")
      const settings = { ...connection, PRODUCT_BATCH_SIZE: "10", ...FAST_RECONCILE }
      const first = yield* startApp("app-1", dir, settings)
      const bearer = yield* token("KILLED")
      const products = sampleProducts(20_000, { prefix: "KP-" })
      // Some of it is persisted while the rest is published.
      const { upload, load } = yield* publishingFileLoad({ base: first.base, postgresUrl: postgres.url, company: "KILLED", bearer, products })
      yield* waitUntil("some persisted", Effect.flatMap(loadTotals(postgres.url, [load.process_code]), (t) =>
        t.persisted > 0 ? Effect.void : Effect.fail(new Error("none yet"))), "60 seconds")
      yield* first.child.kill("SIGKILL")
      yield* first.child.exited
      const outcome = yield* Fiber.await(upload)
      expect(outcome._tag === "Success" ? outcome.value.status : null).not.toBe(200)
      const [killed] = yield* loadsOf(postgres.url, "KILLED")
      // PROCESSING is set after the first batches are published and counted; a worker may persist one
      // of them first (the counters wait for its row lock), so the kill can come before it.
      expect(killed, "killed while still receiving").toMatchObject({ receiving: true })
      expect(["RECEIVED", "PROCESSING"]).toContain(killed?.status)

      const second = yield* startApp("app-2", dir, settings)
      const { view, millis } = yield* finalTimed(second.base, load.process_code, bearer)
      expect(view.status, JSON.stringify(view)).toBe("FAILED")
      expect(view.failureReason).toMatch(/stopped before publishing all of it.*send the load again/)
      expect(millis, second.logTail()).toBeLessThan(RECONCILE_BOUND_MS)
      // The batches it published before dying are dropped, not persisted after the fact.
      yield* waitUntil("stream empty", Effect.flatMap(streamLength(redis.url, names.PRODUCT_BATCHES_STREAM), (n) =>
        n === 0 ? Effect.void : Effect.fail(new Error(`${n} entries left`))))
      const settled = yield* loadStatus(second.base, load.process_code, bearer)
      expect(settled.totals.persisted).toBeGreaterThan(0)
      expect(settled.totals.persisted).toBeLessThan(products.length)
      expect(yield* storedOfLoad(postgres.url, load.process_code)).toBe(settled.totals.persisted)
      expect(yield* redisCommand(redis.url, ["EXISTS", `${names.PRODUCT_BATCHES_STREAM}:load:${load.process_code}`])).toBe(0)
      expect(yield* pendingEntries(redis.url, names.PRODUCT_BATCHES_STREAM, names.PRODUCT_CONSUMER_GROUP)).toEqual([])
    }))

  it.live("PostgreSQL stopped while a file load is published: marking it FAILED fails too, and the server, still up, fails it within the lease once PostgreSQL is back", () =>
    Effect.gen(function*() {
      const { dir, postgres, connection } = yield* lab("postgres-down-publishing")
      const app = yield* startApp("app", dir, { ...connection, PRODUCT_BATCH_SIZE: "10", RUN_WORKERS: "false", ...FAST_RECONCILE })
      const bearer = yield* token("OUTAGE")
      const products = sampleProducts(20_000, { prefix: "PO-" })
      const { upload, load } = yield* publishingFileLoad({ base: app.base, postgresUrl: postgres.url, company: "OUTAGE", bearer, products })
      // The publisher's next count of what it published waits on the load's row: the stop meets it inside a statement.
      yield* holdLoadLocks(postgres.url, [load.process_code])
      yield* postgres.stop
      const outcome = yield* Fiber.await(upload)
      const answer = outcome._tag === "Success" ? outcome.value : undefined
      expect(answer?.status, answer?.body).toBeGreaterThanOrEqual(500)
      expect(answer?.body).toContain(load.process_code)
      // What the caller is told is true: the load could not be marked FAILED in the outage.
      expect(answer?.body).toContain("could not be marked FAILED yet, and the server fails it once the database is back")

      yield* postgres.start
      const { view, millis } = yield* finalTimed(app.base, load.process_code, bearer)
      expect(view.status, JSON.stringify(view)).toBe("FAILED")
      expect(view.failureReason).toMatch(/^Publishing this load stopped before all of it was published .*send the load again/i)
      expect(millis, app.logTail()).toBeLessThan(RECONCILE_BOUND_MS)
    }))

  it.live("Redis without persistence restarted mid-load: the lost batches are detected, the load FAILED with its persisted count, /ready and the log report it; a load completed before is untouched", () =>
    Effect.gen(function*() {
      const { dir, postgres, redis, names, connection } = yield* lab("redis-lost")
      const app = yield* startApp("app", dir, {
        ...connection,
        PRODUCT_BATCH_SIZE: "10",
        CLAIM_IDLE_MS: "1000",
        ...FAST_RECONCILE
      })
      const bearer = yield* token("LOST")
      const before = sampleProducts(300, { prefix: "LB-" })
      const done = yield* acceptedLoad(app.base, before, bearer)
      const [completed] = yield* finalViews(app.base, [done], bearer)
      expect(completed?.status).toBe("COMPLETED")

      // The second load waits behind a lock on its row: its first batches are inside their transactions.
      const products = sampleProducts(3_000, { prefix: "LL-" })
      const code = yield* acceptedLoad(app.base, products, bearer)
      const release = yield* holdLoadLocks(postgres.url, [code])
      yield* waitUntil("batches in flight", Effect.flatMap(pendingEntries(redis.url, names.PRODUCT_BATCHES_STREAM, names.PRODUCT_CONSUMER_GROUP),
        (pending) => pending.length > 0 ? Effect.void : Effect.fail(new Error("none pending"))))
      yield* redis.stop
      yield* redis.start
      yield* release

      const { view, millis } = yield* finalTimed(app.base, code, bearer)
      expect(view.status, JSON.stringify(view)).toBe("FAILED")
      expect(view.failureReason).toMatch(/batches were lost: Redis lost them before they were persisted/)
      expect(millis, app.logTail()).toBeLessThan(RECONCILE_BOUND_MS)
      // What was inside a transaction when Redis went is persisted and counted; the rest is not.
      expect(view.totals.persisted).toBeLessThan(products.length)
      expect(yield* storedOfLoad(postgres.url, code)).toBe(view.totals.persisted)
      expect((yield* loadStatus(app.base, done, bearer)).status).toBe("COMPLETED")
      yield* expectStoredExactly(postgres.url, "LOST", "LB-", before)

      const ready = (yield* call(app.base, "/ready")).json() as {
        status: string
        queueLosses: ReadonlyArray<{ processCode: string; lostBatches: number; batches: number }>
        durability: { queue: string }
      }
      expect(ready.status).toBe("ready")
      expect(ready.durability.queue).toMatch(/appendonly no/)
      expect(ready.queueLosses).toEqual([
        expect.objectContaining({ processCode: code, batches: 300, lostBatches: 300 - view.totals.persisted / 10 })
      ])
      const log = readFileSync(app.logFile, "utf8")
      expect(log).toMatch(/the queue lost data: load/)
      expect(log).toMatch(/Redis runs without its append-only file/)
    }))

  it.live("embedded database, QUEUE=memory, SIGTERM while persisting: shutdown drains the in-process queue, so after a restart everything accepted is persisted", () =>
    Effect.gen(function*() {
      const dir = testDir("embedded-sigterm")
      const settings = { DATA_DIR: join(dir, "pg"), QUEUE: "memory", WORKERS: "1", ...FAST_RECONCILE }
      const { first, bearer, products, code } = yield* embeddedLoadPersisting(dir, settings, "ES-")

      const exit = yield* stopTimed(first.child, "SIGTERM")
      expect(exit.code, first.logTail()).toBe(0)
      expect(first.logTail()).toMatch(/the in-process queue is drained/)

      const second = yield* startApp("embedded-2", dir, settings, EMBEDDED)
      const view = yield* loadStatus(second.base, code, bearer)
      expect(view.status, JSON.stringify(view)).toBe("COMPLETED")
      expect(view.totals).toEqual({ received: products.length, accepted: products.length, persisted: products.length, failed: 0 })
    }))

  it.live("embedded database, QUEUE=memory, kill -9 while persisting: after a restart the load ends FAILED within the lease, its persisted count kept", () =>
    Effect.gen(function*() {
      const dir = testDir("embedded-kill")
      const settings = { DATA_DIR: join(dir, "pg"), QUEUE: "memory", WORKERS: "1", ...FAST_RECONCILE }
      const { first, bearer, products, code } = yield* embeddedLoadPersisting(dir, settings, "EK-")
      yield* first.child.kill("SIGKILL")
      yield* first.child.exited

      const second = yield* startApp("embedded-2", dir, settings, EMBEDDED)
      const { view, millis } = yield* finalTimed(second.base, code, bearer)
      expect(view.status, JSON.stringify(view)).toBe("FAILED")
      expect(view.failureReason).toMatch(/batches were lost: the in-process queue stopped with its server/)
      expect(view.totals.persisted).toBeGreaterThan(0)
      expect(view.totals.persisted).toBeLessThan(products.length)
      expect(millis, second.logTail()).toBeLessThan(RECONCILE_BOUND_MS)
    }))

  it.live("embedded defaults (the queue in the embedded PostgreSQL), kill -9 while persisting: after a restart the load ends COMPLETED, every product persisted once and nothing left on the queue", () =>
    Effect.gen(function*() {
      const dir = testDir("embedded-pgqueue-kill")
      const dataDir = join(dir, "pg")
      // The batch being persisted at the kill is claimed again once idle this long.
      const settings = { DATA_DIR: dataDir, WORKERS: "1", CLAIM_IDLE_MS: "5000", ...FAST_RECONCILE }
      const { first, bearer, products, code } = yield* embeddedLoadPersisting(dir, settings, "EQ-")
      expect(readFileSync(first.logFile, "utf8")).toMatch(/queue: tables of the embedded PostgreSQL server/)
      yield* first.child.kill("SIGKILL")
      yield* first.child.exited

      const second = yield* startApp("embedded-2", dir, settings, EMBEDDED)
      const { view } = yield* finalTimed(second.base, code, bearer)
      expect(view.status, JSON.stringify(view)).toBe("COMPLETED")
      expect(view.totals).toEqual({ received: products.length, accepted: products.length, persisted: products.length, failed: 0 })
      const url = `postgres://postgres@localhost/postgres?host=${encodeURIComponent(dataDir)}`
      yield* expectStoredExactly(url, "EMBEDDED", "EQ-", products)
      // A batch is acknowledged after its transaction commits, so the last acks may follow COMPLETED.
      const left = withSql(url, (sql) =>
        sql`SELECT (SELECT count(*)::int FROM retail_queue_entries WHERE stream = 'products:batches') + (SELECT count(*)::int FROM retail_queue_pending) AS n`.pipe(
          Effect.flatMap(Schema.decodeUnknownEffect(Count)),
          Effect.map((rows) => rows[0]?.n ?? 0)
        ))
      yield* waitUntil("queue empty", Effect.flatMap(left, (n) => n === 0 ? Effect.void : Effect.fail(new Error(`${n} entries or pending left`))), "10 seconds")
    }))

  it.live("embedded defaults: a second server on the same DATA_DIR is refused while the first runs, and takes over after the first was killed", () =>
    Effect.gen(function*() {
      const dir = testDir("embedded-owner")
      const settings = { DATA_DIR: join(dir, "pg") }
      const first = yield* startApp("embedded-1", dir, settings, EMBEDDED)
      const bearer = yield* token("OWNER")
      const code = yield* acceptedLoad(first.base, sampleProducts(50, { prefix: "OW-" }), bearer)
      yield* finalViews(first.base, [code], bearer)

      const logFile = join(dir, "second.log")
      const second = yield* spawnChild(process.execPath, serverArgs(), {
        logFile,
        ...EMBEDDED,
        env: { ...settings, JWT_SECRET: "x".repeat(40), CAPACITY_API_KEYS: "k", PORT: "0", INTERNAL_PORT: "0" }
      })
      const exit = yield* Effect.timeout(second.exited, "90 seconds")
      expect(exit.code).not.toBe(0)
      expect(readFileSync(logFile, "utf8")).toMatch(/in use by another server \(pid \d+\); give each server its own DATA_DIR/)
      expect((yield* call(first.base, "/health")).status).toBe(200)

      // Killed, the first leaves its PostgreSQL server running; the next one stops it and starts its own.
      yield* first.child.kill("SIGKILL")
      yield* first.child.exited
      const third = yield* startApp("embedded-3", dir, settings, EMBEDDED)
      expect((yield* loadStatus(third.base, code, bearer)).status).toBe("COMPLETED")
    }))

  it.live("NODE_ENV=production refuses QUEUE=memory unless ALLOW_VOLATILE_QUEUE=true", () =>
    Effect.gen(function*() {
      const dir = testDir("production-queue")
      const logFile = join(dir, "refused.log")
      const child = yield* spawnChild(process.execPath, serverArgs(), {
        logFile,
        ...EMBEDDED,
        env: { NODE_ENV: "production", JWT_SECRET: "a-production-secret-of-at-least-32-bytes!", CAPACITY_API_KEYS: "k", DATA_DIR: join(dir, "pg"), QUEUE: "memory", PORT: "0", INTERNAL_PORT: "0" }
      })
      const exit = yield* Effect.timeout(child.exited, "90 seconds")
      expect(exit.code).not.toBe(0)
      expect(readFileSync(logFile, "utf8")).toMatch(/NODE_ENV=production on a queue that loses accepted products.*set REDIS_URL.*ALLOW_VOLATILE_QUEUE=true/)

      const allowed = yield* startApp("allowed", dir, { NODE_ENV: "production", ALLOW_VOLATILE_QUEUE: "true", DATA_DIR: join(dir, "pg"), QUEUE: "memory" }, EMBEDDED)
      expect((yield* call(allowed.base, "/health")).status).toBe(200)
    }))
})
