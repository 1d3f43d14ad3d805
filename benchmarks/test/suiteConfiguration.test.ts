import { afterEach, describe, expect, it } from "vitest"
import { suiteConfiguration } from "../src/Machine.ts"

const saved = { args: process.env["BENCH_SERVER_NODE_ARGS"], options: process.env["BENCH_SERVER_NODE_OPTIONS"] }

describe("the Configuration line of a benchmark's report", () => {
  afterEach(() => {
    for (const [name, value] of [["BENCH_SERVER_NODE_ARGS", saved.args], ["BENCH_SERVER_NODE_OPTIONS", saved.options]] as const) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  })

  it("names the Node.js flags that replaced npm start's and the roles' for the servers, and nothing when none did", () => {
    delete process.env["BENCH_SERVER_NODE_ARGS"]
    delete process.env["BENCH_SERVER_NODE_OPTIONS"]
    expect(suiteConfiguration()).not.toContain("BENCH_SERVER_NODE")
    process.env["BENCH_SERVER_NODE_ARGS"] = " --initial-old-space-size=128 "
    process.env["BENCH_SERVER_NODE_OPTIONS"] = "--max-old-space-size=256"
    const line = suiteConfiguration()
    expect(line).toContain("BENCH_SERVER_NODE_ARGS=--initial-old-space-size=128")
    expect(line).toContain("BENCH_SERVER_NODE_OPTIONS=--max-old-space-size=256")
  })
})
