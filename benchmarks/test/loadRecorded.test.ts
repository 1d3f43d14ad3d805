import { describe, expect, it } from "vitest"
import { recordedAt } from "../src/support/LoadRecorded.ts"

/** An isRecorded that answers false `misses` times, then true; it counts its calls. */
const seenAfter = (misses: number) => {
  let calls = 0
  return { isRecorded: async () => ++calls > misses, calls: () => calls }
}

const never = new Promise<{ readonly answeredAt: number }>(() => undefined)

describe("recordedAt", () => {
  it("is the start of the first poll that saw the row: after the polls that missed it", async () => {
    const poll = seenAfter(3)
    const before = performance.now()
    const at = await recordedAt(poll.isRecorded, never, 5)
    expect(poll.calls()).toBe(4)
    // Three misses, each followed by a 5 ms wait, came first.
    expect(at - before).toBeGreaterThanOrEqual(14)
    expect(at).toBeLessThanOrEqual(performance.now())
  })

  it("goes on after the upload's answer when it has not seen the row yet, and is then the answer's time, not later", async () => {
    const poll = seenAfter(4)
    const answeredAt = performance.now()
    const at = await recordedAt(poll.isRecorded, Promise.resolve({ answeredAt }), 5)
    expect(poll.calls()).toBe(5)
    expect(at).toBe(answeredAt)
  })

  it("fails when the upload failed before its load was seen", async () => {
    const poll = seenAfter(Number.POSITIVE_INFINITY)
    await expect(recordedAt(poll.isRecorded, Promise.reject(new Error("500")), 5)).rejects.toThrow(/upload failed before its load was recorded/)
  })
})
