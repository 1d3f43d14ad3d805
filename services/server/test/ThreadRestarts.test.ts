import { it as effectIt } from "@effect/vitest"
import { Clock, Duration, Effect, Fiber, Logger } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import { FIRST_RESTART, LONGEST_RESTART, nextRestartDelay, restartForever, STEADY_RUN } from "../src/ThreadRestarts.ts"

const seconds = (d: Duration.Duration) => Duration.toSeconds(d)

describe("when a thread that died is started again", () => {
  it("waits a second after the first death, doubling while it dies soon after each start, up to a minute", () => {
    const waits: Array<number> = []
    let wait = Duration.zero
    for (let i = 0; i < 9; i++) {
      wait = nextRestartDelay(wait, Duration.millis(200))
      waits.push(seconds(wait))
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 60, 60, 60])
  })

  it("waits a second again after a steady run, however long the wait before it was", () => {
    expect(nextRestartDelay(LONGEST_RESTART, STEADY_RUN)).toEqual(FIRST_RESTART)
    expect(nextRestartDelay(Duration.seconds(16), Duration.hours(3))).toEqual(FIRST_RESTART)
    expect(seconds(nextRestartDelay(Duration.seconds(16), Duration.seconds(29)))).toBe(32)
  })

  effectIt.effect("the supervisor starts it at once, again after 1, 2, 4 s while it dies at start, 1 s after a 30 s run, and logs each exit", () =>
    Effect.gen(function*() {
      // How long each run lasts before the thread exits (ms); the last run does not end.
      const runs = [0, 0, 0, 30_000, 0]
      const starts: Array<number> = []
      const logged: Array<string> = []
      const runOnce = Effect.gen(function*() {
        starts.push(yield* Clock.currentTimeMillis)
        const lasts = runs[starts.length - 1]
        if (lasts === undefined) return yield* Effect.never
        yield* Effect.sleep(Duration.millis(lasts))
        return { code: 1, error: undefined }
      })
      const supervisor = yield* Effect.forkChild(
        restartForever("a thread", runOnce).pipe(
          Effect.provide(Logger.layer([Logger.make(({ message }) => logged.push(String(Array.isArray(message) ? message[0] : message)))]))
        )
      )
      yield* TestClock.adjust(Duration.minutes(2))
      yield* Fiber.interrupt(supervisor)
      expect(starts.map((at) => (at - starts[0]!) / 1000)).toEqual([0, 1, 3, 7, 38, 40])
      expect(logged).toEqual([
        "a thread exited (code 1) after 0; starting it again in 1s",
        "a thread exited (code 1) after 0; starting it again in 2s",
        "a thread exited (code 1) after 0; starting it again in 4s",
        "a thread exited (code 1) after 30s; starting it again in 1s",
        "a thread exited (code 1) after 0; starting it again in 2s"
      ])
    }))
})
