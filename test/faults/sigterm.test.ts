import { describe, expect, it } from "@effect/vitest"
import { sampleProducts } from "@retail/testkit"
import { Effect, Fiber } from "effect"
import { readFileSync } from "node:fs"
import { WORKER_ROLE } from "../../scripts/clusterPlan.ts"
import { startApp, token } from "./support/App.ts"
import { lab } from "./support/Lab.ts"
import { acceptedLoad, expectStoredExactly, finalViews } from "./support/Loads.ts"
import { stopTimed, waitUntil } from "./support/Processes.ts"
import { pendingEntries, streamLength } from "./support/Redis.ts"
import { holdLoadLocks, loadsOf, loadTotals } from "./support/Store.ts"
import { fileOf, publishingFileLoad, streamUpload } from "./support/Upload.ts"

/** The issue asks for a bounded exit; generous, as this machine is shared. */
const EXIT_BOUND_MS = 30_000

/**
 * The two ways a process runs the batch workers, each stopped mid-drain: npm start's single process
 * (on its persist thread), and a worker process of the cluster plan (on its event loop, with the
 * role's Node.js flags), which a rolling deploy of docker-compose.yml's `worker` service stops.
 */
const WORKER_SHAPES = [
  { name: "npm start's persist thread", label: "thread", env: { RUN_WORKERS: "true" }, nodeFlags: [], placed: /batch workers: \d+ on a thread of their own/ },
  {
    name: "the cluster plan's worker role",
    label: "role",
    env: WORKER_ROLE.env,
    nodeFlags: WORKER_ROLE.nodeFlags,
    placed: /batch workers: \d+ on the event loop's thread \(PERSIST_THREAD=false\)/
  }
] as const


describe("SIGTERM", () => {
  it.live("during a file upload that ends within the grace period: the upload finishes (200), the process exits in bounded time, everything is stored", () =>
    Effect.gen(function*() {
      const { dir, postgres, connection } = yield* lab("sigterm-upload")
      const settings = { ...connection, PRODUCT_BATCH_SIZE: "50" }
      const first = yield* startApp("app-1", dir, settings)
      const bearer = yield* token("UPLOADER")
      const products = sampleProducts(4_000, { prefix: "UP-" })
      let stopped: Promise<{ millis: number }> | undefined
      const outcome = yield* streamUpload({
        url: `${first.base}/v1/handle-json`,
        bearer,
        part: "productsJson",
        content: fileOf(products),
        chunks: 20,
        pauseMs: 100,
        onChunk: async (i) => {
          if (i === 5) stopped = Effect.runPromise(stopTimed(first.child, "SIGTERM"))
        }
      })
      const exit = yield* Effect.promise(() => stopped ?? Promise.reject(new Error("never stopped")))
      expect(exit.millis).toBeLessThan(EXIT_BOUND_MS)
      expect(outcome.status, JSON.stringify(outcome)).toBe(200)

      const second = yield* startApp("app-2", dir, settings)
      const [view] = yield* finalViews(second.base, [(JSON.parse(outcome.body) as { processCode: string }).processCode], bearer)
      expect(view?.status).toBe("COMPLETED")
      yield* expectStoredExactly(postgres.url, "UPLOADER", "UP-", products)
    }))

  it.live("during a slow upload that outlasts the grace period: its connection is cut, the process exits in bounded time, nothing is recorded, a retry is stored whole", () =>
    Effect.gen(function*() {
      const { dir, postgres, connection } = yield* lab("sigterm-slow-upload")
      const settings = { ...connection, PRODUCT_BATCH_SIZE: "50" }
      const first = yield* startApp("app-1", dir, { ...settings, SHUTDOWN_GRACE_MS: "3000" })
      const bearer = yield* token("SLOW")
      const products = sampleProducts(2_000, { prefix: "SL-" })
      const content = fileOf(products)
      let stopped: Promise<{ millis: number }> | undefined
      const outcome = yield* streamUpload({
        url: `${first.base}/v1/handle-json`,
        bearer,
        part: "productsJson",
        content,
        chunks: 60,
        pauseMs: 500,
        onChunk: async (i) => {
          if (i === 2) stopped = Effect.runPromise(stopTimed(first.child, "SIGTERM"))
        }
      })
      const exit = yield* Effect.promise(() => stopped ?? Promise.reject(new Error("never stopped")))
      expect(exit.millis, first.logTail()).toBeLessThan(EXIT_BOUND_MS)
      expect(outcome.status, JSON.stringify(outcome)).not.toBe(200)
      expect(yield* loadsOf(postgres.url, "SLOW")).toEqual([])

      const second = yield* startApp("app-2", dir, settings)
      const retried = yield* streamUpload({ url: `${second.base}/v1/handle-json`, bearer, part: "productsJson", content, chunks: 1, pauseMs: 0 })
      expect(retried.status, retried.body).toBe(200)
      const [view] = yield* finalViews(second.base, [(JSON.parse(retried.body) as { processCode: string }).processCode], bearer)
      expect(view?.status).toBe("COMPLETED")
      yield* expectStoredExactly(postgres.url, "SLOW", "SL-", products)
    }))

  it.live("while a file load is being published and the grace period is over: the load ends FAILED (never left PROCESSING) and the caller gets no 200", () =>
    Effect.gen(function*() {
      const { dir, postgres, connection } = yield* lab("sigterm-publish")
      const settings = { ...connection, PRODUCT_BATCH_SIZE: "10" }
      const first = yield* startApp("app-1", dir, { ...settings, SHUTDOWN_GRACE_MS: "0" })
      const bearer = yield* token("PUBLISHER")
      const products = sampleProducts(5_000, { prefix: "PB-" })
      const { upload } = yield* publishingFileLoad({ base: first.base, postgresUrl: postgres.url, company: "PUBLISHER", bearer, products })
      const exit = yield* stopTimed(first.child, "SIGTERM")
      const outcome = yield* Fiber.await(upload)
      expect(exit.millis).toBeLessThan(EXIT_BOUND_MS)
      expect(outcome._tag === "Success" ? outcome.value.status : null).not.toBe(200)

      const second = yield* startApp("app-2", dir, settings)
      const [load] = yield* loadsOf(postgres.url, "PUBLISHER")
      const [view] = yield* finalViews(second.base, [load!.process_code], bearer)
      expect(view?.status, JSON.stringify(view)).toBe("FAILED")
      expect(view?.failureReason).toMatch(/interrupted/)
    }))

  for (const shape of WORKER_SHAPES) {
    it.live(`while workers drain the queue (${shape.name}): the worker exits in bounded time with code 0, in-flight batches finish or stay pending, and a new worker stores everything once`, () =>
      Effect.gen(function*() {
        const { dir, postgres, redis, names, connection } = yield* lab(`sigterm-drain-${shape.label}`)
        const settings = { ...connection, PRODUCT_BATCH_SIZE: "10", CLAIM_IDLE_MS: "2000" }
        const api = yield* startApp("api", dir, { ...settings, RUN_WORKERS: "false" })
        const worker = yield* startApp("worker-1", dir, { ...settings, ...shape.env }, { nodeFlags: shape.nodeFlags })
        // The child's output reaches its log file through the test's own stream: wait for the line.
        yield* waitUntil("where the workers run, in worker-1's log", Effect.suspend(() =>
          shape.placed.test(readFileSync(worker.logFile, "utf8")) ? Effect.void : Effect.fail(new Error(worker.logTail()))))
        const bearer = yield* token("DRAIN")
        const sent = Array.from({ length: 3 }, (_, i) => sampleProducts(600, { prefix: `DR${i}-` }))
        const codes: Array<string> = []
        for (const products of sent) codes.push(yield* acceptedLoad(api.base, products, bearer))
        yield* waitUntil("draining", Effect.flatMap(loadTotals(postgres.url, codes), (t) =>
          t.persisted > 0 ? Effect.void : Effect.fail(new Error("none yet"))))

        const exit = yield* stopTimed(worker.child, "SIGTERM")
        expect(exit.millis).toBeLessThan(EXIT_BOUND_MS)
        expect(exit.code, worker.logTail()).toBe(0)
        expect((yield* loadTotals(postgres.url, codes)).persisted).toBeLessThan(1800)

        yield* startApp("worker-2", dir, { ...settings, ...shape.env }, { nodeFlags: shape.nodeFlags })
        for (const view of yield* finalViews(api.base, codes, bearer)) expect(view.status).toBe("COMPLETED")
        yield* expectStoredExactly(postgres.url, "DRAIN", "DR", sent.flat())
        expect(yield* pendingEntries(redis.url, names.PRODUCT_BATCHES_STREAM, names.PRODUCT_CONSUMER_GROUP)).toEqual([])
        expect(yield* streamLength(redis.url, `${names.PRODUCT_BATCHES_STREAM}:dead`)).toBe(0)
      }))
  }

  it.live("while the database is down and a worker waits for it: the process still exits in bounded time, its batches left pending", () =>
    Effect.gen(function*() {
      const { dir, postgres, redis, names, connection } = yield* lab("sigterm-db-down")
      const settings = { ...connection, PRODUCT_BATCH_SIZE: "10", CLAIM_IDLE_MS: "2000" }
      const app = yield* startApp("app-1", dir, settings)
      const bearer = yield* token("OUTAGE")
      const products = sampleProducts(500, { prefix: "OU-" })
      const code = yield* acceptedLoad(app.base, products, bearer)
      yield* holdLoadLocks(postgres.url, [code])
      yield* waitUntil("in flight", Effect.flatMap(pendingEntries(redis.url, names.PRODUCT_BATCHES_STREAM, names.PRODUCT_CONSUMER_GROUP),
        (p) => p.length > 0 ? Effect.void : Effect.fail(new Error("none"))))
      yield* postgres.stop
      yield* Effect.sleep("3 seconds")

      const exit = yield* stopTimed(app.child, "SIGTERM")
      expect(exit.millis, app.logTail()).toBeLessThan(EXIT_BOUND_MS)
      expect(yield* pendingEntries(redis.url, names.PRODUCT_BATCHES_STREAM, names.PRODUCT_CONSUMER_GROUP)).not.toEqual([])

      yield* postgres.start
      const next = yield* startApp("app-2", dir, settings)
      const [view] = yield* finalViews(next.base, [code], bearer)
      expect(view?.status).toBe("COMPLETED")
      yield* expectStoredExactly(postgres.url, "OUTAGE", "OU-", products)
    }))

  it.live("while Redis is down: the process still exits in bounded time (the batch workers' thread too), and what was stored before stays", () =>
    Effect.gen(function*() {
      const { dir, postgres, redis, connection } = yield* lab("sigterm-redis-down")
      const app = yield* startApp("app-1", dir, connection)
      const bearer = yield* token("REDISDOWN")
      const products = sampleProducts(20, { prefix: "RD-" })
      const [view] = yield* finalViews(app.base, [yield* acceptedLoad(app.base, products, bearer)], bearer)
      expect(view?.status).toBe("COMPLETED")
      yield* redis.stop
      // Long enough for every Redis client of the process, the workers' thread's included, to be reconnecting.
      yield* Effect.sleep("3 seconds")

      const exit = yield* stopTimed(app.child, "SIGTERM")
      expect(exit.millis, app.logTail()).toBeLessThan(EXIT_BOUND_MS)
      expect(app.logTail()).not.toContain("did not stop within")
      yield* expectStoredExactly(postgres.url, "REDISDOWN", "RD-", products)
    }))
})
