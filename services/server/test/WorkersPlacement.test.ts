import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { resolve } from "node:path"
import { type PlacementSettings, placeWorkers } from "../src/WorkersPlacement.ts"

const settings = (overrides: Partial<PlacementSettings>): PlacementSettings => ({
  queue: Option.none(),
  redisUrl: Option.none(),
  databaseUrl: Option.none(),
  dataDir: "./.data/postgres",
  persistThread: true,
  persistThreadNice: 10,
  persistYieldLagMs: 10,
  persistYieldMaxMs: 100,
  databasePoolSize: 10,
  redisPublishTimeoutMs: 5000,
  ...overrides
})

describe("where the batch workers run", () => {
  it.effect("npm start's embedded defaults: a thread, on the embedded server's socket, the queue in its tables", () =>
    Effect.gen(function*() {
      const placement = yield* placeWorkers(settings({}), 2)
      expect(placement._tag).toBe("Thread")
      if (placement._tag !== "Thread") return
      expect(placement.settings.queue).toBe("postgres")
      expect(placement.settings.databaseUrl).toBe(`postgres://postgres@localhost/postgres?host=${encodeURIComponent(resolve("./.data/postgres"))}`)
      // A connection per worker, one for the reclaimer, one for readiness checks.
      expect(placement.settings.poolSize).toBe(4)
    }))

  it.effect("DATABASE_URL and REDIS_URL: a thread on both, its pool at most DATABASE_POOL_SIZE", () =>
    Effect.gen(function*() {
      const placement = yield* placeWorkers(settings({ databaseUrl: Option.some("postgres://db/x"), redisUrl: Option.some("redis://r/3"), databasePoolSize: 3 }), 8)
      expect(placement).toMatchObject({ _tag: "Thread", settings: { databaseUrl: "postgres://db/x", queue: "redis", redisUrl: "redis://r/3", poolSize: 3 } })
    }))

  it.effect("the event loop where a thread cannot share what the workers use: the in-process queue, the in-memory PGlite; or when PERSIST_THREAD=false", () =>
    Effect.gen(function*() {
      expect(yield* placeWorkers(settings({ queue: Option.some("memory") }), 2)).toMatchObject({ _tag: "EventLoop", reason: expect.stringMatching(/QUEUE=memory/) })
      expect(yield* placeWorkers(settings({ dataDir: "memory://" }), 2)).toMatchObject({ _tag: "EventLoop", reason: expect.stringMatching(/QUEUE=memory/) })
      expect(yield* placeWorkers(settings({ dataDir: "memory://", redisUrl: Option.some("redis://r") }), 2))
        .toMatchObject({ _tag: "EventLoop", reason: expect.stringMatching(/DATA_DIR=memory:\/\//) })
      expect(yield* placeWorkers(settings({ persistThread: false, redisUrl: Option.some("redis://r") }), 2))
        .toMatchObject({ _tag: "EventLoop", reason: "PERSIST_THREAD=false" })
    }))
})
