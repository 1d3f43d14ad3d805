import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { parseArgs } from "../src/Cli.ts"

describe("npm run bench arguments", () => {
  it("runs everything by default, each benchmark its default runs", () => {
    expect(parseArgs([])).toEqual(Result.succeed({ name: undefined, size: undefined, runs: undefined, smoke: false, label: process.env["BENCH_LABEL"] ?? "" }))
  })

  it("takes one benchmark with its size and runs", () => {
    expect(Result.map(parseArgs(["handle-json", "--size", "600000", "--runs", "1"]), (o) => [o.name, o.size, o.runs])).toEqual(
      Result.succeed(["handle-json", 600000, 1])
    )
  })

  it("refuses a size without a benchmark, a bad number and an unknown option, saying which", () => {
    expect(parseArgs(["--size", "10"])).toEqual(Result.fail("--size applies to one benchmark: name it"))
    expect(parseArgs(["capacity", "--runs", "0"])).toEqual(Result.fail("--runs needs a positive integer (got 0)"))
    expect(parseArgs(["capacity", "--fast"])).toEqual(Result.fail("unknown option --fast"))
  })
})
