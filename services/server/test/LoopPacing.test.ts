import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import type { EventLoopAnswer } from "../src/EventLoopPing.ts"
import { CHECKOUT_RECENT_MS, loopPacing } from "../src/LoopPacing.ts"

const SETTINGS = { lagMs: 10, maxWaitMs: 100 }

/**
 * A ping answered with each of `answers` in turn (the last one again once they run out), counting
 * the pings. `checkout: "more"` answers one checkout request more than the previous answer. The
 * first answer is the pacer's baseline: an answer in time, before any checkout.
 */
const pings = (answers: ReadonlyArray<{ readonly lateMs: number; readonly checkout: number | "more" }>) => {
  let sent = 0
  let checkout = 0
  const ping = Effect.sync((): EventLoopAnswer => {
    const answer = answers[Math.min(sent++, answers.length - 1)] ?? { lateMs: 0, checkout: 0 }
    checkout = answer.checkout === "more" ? checkout + 1 : answer.checkout
    return { lateMs: answer.lateMs, checkout }
  })
  return { ping, sent: () => sent }
}

const BASELINE = { lateMs: 1, checkout: 0 }

/** Starts the wait before a batch, and tells when it ended (by the test clock). */
const startWait = (beforeBatch: Effect.Effect<void>) =>
  Effect.gen(function*() {
    let ended = false
    const fiber = yield* Effect.forkChild(Effect.tap(beforeBatch, () => Effect.sync(() => (ended = true))))
    yield* Effect.yieldNow
    return { fiber, ended: () => ended }
  })

describe("the workers' thread gives way to the event loop serving checkout, before each batch", () => {
  it.effect("goes on at once while the event loop answers within PERSIST_YIELD_LAG_MS", () =>
    Effect.gen(function*() {
      const { ping, sent } = pings([BASELINE, { lateMs: 3, checkout: "more" }])
      const pacing = loopPacing(ping, SETTINGS)
      yield* pacing.beforeBatch
      const wait = yield* startWait(pacing.beforeBatch)
      expect(wait.ended()).toBe(true)
      expect(sent()).toBe(2)
    }))

  it.effect("waits while the event loop answers late with checkout requests coming, and goes on once it answers in time", () =>
    Effect.gen(function*() {
      const { ping, sent } = pings([BASELINE, { lateMs: 40, checkout: "more" }, { lateMs: 25, checkout: "more" }, { lateMs: 4, checkout: "more" }])
      const pacing = loopPacing(ping, SETTINGS)
      yield* pacing.beforeBatch
      const wait = yield* startWait(pacing.beforeBatch)
      expect(wait.ended()).toBe(false)
      yield* TestClock.adjust(5)
      expect(wait.ended()).toBe(false)
      yield* TestClock.adjust(5)
      yield* Fiber.join(wait.fiber)
      expect(sent()).toBe(4)
    }))

  it.effect("two consumers answered in the same turn of the event loop are both held while checkout comes", () =>
    Effect.gen(function*() {
      let sent = 0
      // Late, one checkout request more than the baseline, for the first 5 ms; in time after.
      const ping = Effect.map(Clock.currentTimeMillis, (now): EventLoopAnswer =>
        sent++ === 0 ? BASELINE : now < 5 ? { lateMs: 40, checkout: 1 } : { lateMs: 4, checkout: 1 })
      const pacing = loopPacing(ping, SETTINGS)
      yield* pacing.beforeBatch
      const first = yield* startWait(pacing.beforeBatch)
      const second = yield* startWait(pacing.beforeBatch)
      expect([first.ended(), second.ended()]).toEqual([false, false])
      yield* TestClock.adjust(5)
      yield* Fiber.join(first.fiber)
      yield* Fiber.join(second.fiber)
    }))

  it.effect("a late event loop whose checkout count has not moved for CHECKOUT_RECENT_MS does not hold the batch", () =>
    Effect.gen(function*() {
      const { ping, sent } = pings([BASELINE, { lateMs: 1, checkout: 7 }, { lateMs: 40, checkout: 7 }])
      const pacing = loopPacing(ping, SETTINGS)
      yield* pacing.beforeBatch
      yield* pacing.beforeBatch
      yield* TestClock.adjust(CHECKOUT_RECENT_MS + 1)
      const wait = yield* startWait(pacing.beforeBatch)
      expect(wait.ended()).toBe(true)
      expect(sent()).toBe(3)
    }))

  it.effect("waits at most PERSIST_YIELD_MAX_MS a batch, however late the event loop stays", () =>
    Effect.gen(function*() {
      const { ping } = pings([BASELINE, { lateMs: 500, checkout: "more" }])
      const pacing = loopPacing(ping, SETTINGS)
      yield* pacing.beforeBatch
      const wait = yield* startWait(pacing.beforeBatch)
      yield* TestClock.adjust(99)
      expect(wait.ended()).toBe(false)
      yield* TestClock.adjust(1)
      yield* Fiber.join(wait.fiber)
    }))

  it.effect("a ping never answered (the event loop blocked) holds the batch for PERSIST_YIELD_MAX_MS, no longer", () =>
    Effect.gen(function*() {
      const wait = yield* startWait(loopPacing(Effect.never, SETTINGS).beforeBatch)
      yield* TestClock.adjust(99)
      expect(wait.ended()).toBe(false)
      yield* TestClock.adjust(1)
      yield* Fiber.join(wait.fiber)
    }))

  it.effect("PERSIST_YIELD_LAG_MS=0: no ping, no wait", () =>
    Effect.gen(function*() {
      const { ping, sent } = pings([{ lateMs: 500, checkout: "more" }])
      const wait = yield* startWait(loopPacing(ping, { lagMs: 0, maxWaitMs: 100 }).beforeBatch)
      expect(wait.ended()).toBe(true)
      expect(sent()).toBe(0)
    }))
})
