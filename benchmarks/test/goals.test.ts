import { describe, expect, it } from "@effect/vitest"
import { type Benchmark, figure } from "../src/Benchmark.ts"
import { toMarkdown } from "../src/Markdown.ts"
import { runSuite } from "../src/Runner.ts"

/** A benchmark that measures the given p99s, one a run, against a goal written `< 20`. */
const measuring = (p99s: ReadonlyArray<number>): Benchmark => ({
  name: "goal-check",
  description: "p99s as given",
  sizeUnit: "runs",
  defaultSize: 1,
  smokeSize: 1,
  open: async () => {
    let run = 0
    return {
      run: async () => [figure("p99 latency", "ms", p99s[run++] ?? 0, { better: "lower", goal: { on: "median", below: 20, source: "an issue: p99 < 20 ms" } })],
      close: async () => {}
    }
  }
})

const goalOf = async (p99s: ReadonlyArray<number>) => {
  const report = await runSuite([measuring(p99s)], { scale: "smoke", runs: p99s.length, label: "test", command: "test", log: () => {} })
  return { goal: report.benchmarks[0]?.figures[0]?.goal, markdown: toMarkdown(report) }
}

describe("a goal written < x", () => {
  it("is met below x only: a p99 of 20 ms is not under 20 ms, and the report says < 20", async () => {
    const at = await goalOf([20])
    expect(at.goal?.met).toBe(false)
    expect(at.markdown).toContain("**not met**: < 20 (an issue: p99 < 20 ms)")
    const under = await goalOf([19, 21, 19])
    expect(under.goal?.met).toBe(true)
    expect(under.markdown).toContain("met: < 20")
  })
})
