import { describe, expect, it } from "vitest"
import { flagsNotIn, serverNodeFlags } from "../../scripts/serverNodeFlags.ts"

describe("the Node.js flags of npm start, which the benchmarks' servers run with", () => {
  it("npm start bounds both V8 heap generations of the server and scavenges on the threads that allocate", () => {
    const names = serverNodeFlags().map((flag) => flag.split("=")[0])
    expect(names).toContain("--max-semi-space-size")
    expect(names).toContain("--max-old-space-size")
    expect(names).toContain("--no-parallel-scavenge")
  })

  it("reads the flags between node and dist/server.mjs, after the build", () => {
    expect(serverNodeFlags("npm run build && node --a=1 --b dist/server.mjs")).toEqual(["--a=1", "--b"])
    expect(serverNodeFlags("node dist/server.mjs")).toEqual([])
  })

  it("refuses a start script of another shape rather than running the benchmark without its flags", () => {
    expect(() => serverNodeFlags("tsx services/server/src/main.ts")).toThrow(/start script/)
  })

  it("leaves out the flags BENCH_SERVER_NODE_OPTIONS sets itself (the command line would win over it)", () => {
    expect(flagsNotIn(["--max-old-space-size=512", "--max-semi-space-size=2"], "--max-old-space-size=1024 --import x.mjs")).toEqual(["--max-semi-space-size=2"])
    expect(flagsNotIn(["--max-semi-space-size=2"], undefined)).toEqual(["--max-semi-space-size=2"])
  })
})
