import { describe, expect, it } from "@effect/vitest"
import { type BodySample, makeBodyProgress } from "../src/BodyProgress.ts"

const rule = { idleTimeoutMs: 1000, minBytesPerSecond: 1024 }

/** Feeds samples every 100 ms: `bytesAt(t)` bytes read so far and `busyAt(t)` at each; the first verdict that is not "receiving". */
const run = (untilMs: number, bytesAt: (t: number) => number, busyAt: (t: number) => boolean = () => false) => {
  const sample = (t: number): BodySample => ({ now: t, bytesRead: bytesAt(t), serverBusy: busyAt(t) })
  const judge = makeBodyProgress(rule, sample(0))
  for (let t = 100; t <= untilMs; t += 100) {
    const verdict = judge(sample(t))
    if (verdict !== "receiving") return { verdict, at: t }
  }
  return { verdict: "receiving", at: untilMs }
}

describe("BodyProgress", () => {
  it("a steady body above the minimum rate keeps receiving, however long it lasts", () => {
    expect(run(60_000, (t) => t * 2)).toEqual({ verdict: "receiving", at: 60_000 })
  })

  it("a body that stops is idle once the idle timeout has passed without a byte", () => {
    expect(run(10_000, (t) => Math.min(t, 3000) * 10)).toEqual({ verdict: "idle", at: 4000 })
  })

  it("a body trickling under the minimum rate is too slow at the end of its window", () => {
    expect(run(10_000, (t) => Math.floor(t / 10))).toEqual({ verdict: "tooSlow", at: 1000 })
  })

  it("the minimum rate 0 turns the rate check off", () => {
    const judge = makeBodyProgress({ idleTimeoutMs: 1000, minBytesPerSecond: 0 }, { now: 0, bytesRead: 0, serverBusy: false })
    for (let t = 100; t <= 10_000; t += 100) expect(judge({ now: t, bytesRead: t / 100, serverBusy: false })).toBe("receiving")
  })

  it("while the server does not read (its buffers full), no byte arriving is neither idle nor slow", () => {
    // Nothing arrives from 2 s to 8 s, while the server is busy from 1.5 s to 8 s; then the body goes on.
    const bytes = (t: number) => (t < 2000 ? t * 10 : t < 8000 ? 20_000 : 20_000 + (t - 8000) * 10)
    expect(run(12_000, bytes, (t) => t >= 1500 && t < 8000)).toEqual({ verdict: "receiving", at: 12_000 })
  })

  it("once the server reads again, a client that still sends nothing is idle after the idle timeout", () => {
    expect(run(12_000, (t) => Math.min(t, 2000) * 10, (t) => t >= 1500 && t < 5000)).toEqual({ verdict: "idle", at: 5900 })
  })
})
