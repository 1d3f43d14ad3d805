import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { eventLoopPing } from "../src/EventLoopPing.ts"
import type { PingFromThread } from "../src/PersistThreadSettings.ts"

describe("the workers' thread's ping to the event loop", () => {
  it.effect("each ping resumes with its own answer, in whatever order the answers come", () =>
    Effect.gen(function*() {
      const posted: Array<PingFromThread> = []
      const { ping, answered } = eventLoopPing((sent) => posted.push(sent))
      const first = yield* Effect.forkChild(ping)
      const second = yield* Effect.forkChild(ping)
      yield* Effect.yieldNow
      expect(posted.map((p) => p.id)).toEqual([0, 1])
      answered(1, 12)
      const late = yield* Fiber.join(second)
      expect(late.checkout).toBe(12)
      expect(late.lateMs).toBeGreaterThanOrEqual(0)
      expect(first.pollUnsafe()).toBeUndefined()
      answered(0, 11)
      expect((yield* Fiber.join(first)).checkout).toBe(11)
    }))

  it.effect("a ping given up (timed out) is forgotten: its late answer resumes nothing", () =>
    Effect.gen(function*() {
      const posted: Array<PingFromThread> = []
      const { ping, answered } = eventLoopPing((sent) => posted.push(sent))
      const given = yield* Effect.forkChild(ping)
      yield* Effect.yieldNow
      yield* Fiber.interrupt(given)
      answered(0, 1)
      answered(7, 1)
      const next = yield* Effect.forkChild(ping)
      yield* Effect.yieldNow
      expect(posted.map((p) => p.id)).toEqual([0, 1])
      expect(next.pollUnsafe()).toBeUndefined()
      answered(1, 2)
      expect((yield* Fiber.join(next)).checkout).toBe(2)
    }))
})
