import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { chooseQueue, type QueueKind, type QueueSettings } from "../src/QueueChoice.ts"

const settings = (overrides: Partial<QueueSettings>): QueueSettings => ({
  queue: Option.none(),
  redisUrl: Option.none(),
  databaseUrl: Option.none(),
  dataDir: "./.data/postgres",
  ...overrides
})

describe("QUEUE", () => {
  it.effect("unset: Redis with REDIS_URL, else the database's tables, else in-process for a database in memory", () =>
    Effect.gen(function*() {
      expect(yield* chooseQueue(settings({ redisUrl: Option.some("redis://r") }))).toBe("redis")
      expect(yield* chooseQueue(settings({}))).toBe("postgres")
      expect(yield* chooseQueue(settings({ databaseUrl: Option.some("postgres://p"), dataDir: "memory://" }))).toBe("postgres")
      expect(yield* chooseQueue(settings({ dataDir: "memory://" }))).toBe("memory")
    }))

  it.effect("set: wins, but redis needs REDIS_URL", () =>
    Effect.gen(function*() {
      const memory: QueueKind = "memory"
      expect(yield* chooseQueue(settings({ queue: Option.some(memory), redisUrl: Option.some("redis://r") }))).toBe("memory")
      expect(yield* chooseQueue(settings({ queue: Option.some("postgres"), dataDir: "memory://" }))).toBe("postgres")
      const error = yield* Effect.flip(chooseQueue(settings({ queue: Option.some("redis") })))
      expect(error.message).toMatch(/QUEUE=redis needs REDIS_URL/)
    }))
})
