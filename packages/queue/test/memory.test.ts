import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { MemoryStreamQueue, StreamQueue } from "../src/index.ts"
import { streamQueueContract } from "./contract.ts"

streamQueueContract({ name: "memory", layer: MemoryStreamQueue.layer })

describe("MemoryStreamQueue on the test clock", () => {
  it.effect("claims by idle time measured on the Clock", () =>
    Effect.gen(function*() {
      const queue = yield* StreamQueue
      yield* queue.ensureGroup("s", "g")
      yield* queue.publish("s", ["a"])
      yield* queue.read("s", "g", "c1", { count: 1, blockMs: 0 })
      yield* TestClock.adjust("59 seconds")
      expect(yield* queue.claimStale("s", "g", "c2", { minIdleMs: 60_000, count: 1 })).toEqual([])
      yield* TestClock.adjust("1 second")
      const claimed = yield* queue.claimStale("s", "g", "c2", { minIdleMs: 60_000, count: 1 })
      expect(claimed.map((d) => d.deliveries)).toEqual([2])
    }).pipe(Effect.provide(MemoryStreamQueue.layer)))

  it.effect("a blocking read waits on the Clock, not on wall time", () =>
    Effect.gen(function*() {
      const queue = yield* StreamQueue
      yield* queue.ensureGroup("s", "g")
      const reader = yield* Effect.forkChild(queue.read("s", "g", "c1", { count: 1, blockMs: 1_000 }))
      yield* TestClock.adjust("999 millis")
      expect(reader.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("1 millis")
      expect(yield* Fiber.join(reader)).toEqual([])
    }).pipe(Effect.provide(MemoryStreamQueue.layer)))

  it.effect("ids follow Redis: ms-seq, increasing within one millisecond", () =>
    Effect.gen(function*() {
      const queue = yield* StreamQueue
      yield* TestClock.setTime(1_700_000_000_000)
      const first = yield* queue.publish("s", ["a", "b"])
      yield* TestClock.adjust("1 millis")
      const second = yield* queue.publish("s", ["c"])
      expect([...first, ...second]).toEqual(["1700000000000-0", "1700000000000-1", "1700000000001-0"])
    }).pipe(Effect.provide(MemoryStreamQueue.layer)))

  it.effect("entries trimmed while pending are dropped by claimStale", () =>
    Effect.gen(function*() {
      const queue = yield* StreamQueue
      yield* queue.ensureGroup("s", "g")
      yield* queue.publish("s", ["a", "b"])
      yield* queue.read("s", "g", "c1", { count: 2, blockMs: 0 })
      yield* queue.publish("s", ["c"], { maxLen: 2 })
      const claimed = yield* queue.claimStale("s", "g", "c2", { minIdleMs: 0, count: 10 })
      expect(claimed.map((d) => d.payload)).toEqual(["b"])
    }).pipe(Effect.provide(MemoryStreamQueue.layer)))
})
