import { Duration } from "effect"
import { describe, expect, it } from "vitest"
import { FIRST_RESTART, LONGEST_RESTART, nextRestartDelay, STEADY_RUN } from "../src/ThreadRestarts.ts"

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
})
