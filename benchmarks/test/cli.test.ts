import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { parseArgs } from "../src/Cli.ts"

describe("npm run bench arguments", () => {
  it("runs everything by default, each benchmark its default runs", () => {
    expect(parseArgs([])).toEqual(Either.right({ name: undefined, size: undefined, runs: undefined, smoke: false, label: process.env["BENCH_LABEL"] ?? "" }))
  })

  it("takes one benchmark with its size and runs", () => {
    expect(Either.map(parseArgs(["handle-json", "--size", "600000", "--runs", "1"]), (o) => [o.name, o.size, o.runs])).toEqual(
      Either.right(["handle-json", 600000, 1])
    )
  })

  it("refuses a size without a benchmark, a bad number and an unknown option, saying which", () => {
    expect(parseArgs(["--size", "10"])).toEqual(Either.left("--size applies to one benchmark: name it"))
    expect(parseArgs(["capacity", "--runs", "0"])).toEqual(Either.left("--runs needs a positive integer (got 0)"))
    expect(parseArgs(["capacity", "--fast"])).toEqual(Either.left("unknown option --fast"))
  })
})
