import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { SERVER_SETTINGS } from "../src/support/ServerProcess.ts"

describe("the server settings an npm-start server under test does not inherit", () => {
  it("name every variable of README.md's Configuration table but the benchmarks' own", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8")
    const table = readme.slice(readme.indexOf("## Configuration"), readme.indexOf("## API"))
    const documented = [...table.matchAll(/^\| ((?:`[A-Z0-9_]+`(?:, )?)+) \|/gm)]
      .flatMap((row) => [...(row[1] ?? "").matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1] ?? ""))
      .filter((name) => !name.startsWith("BENCH_"))
    expect(documented.length).toBeGreaterThan(40)
    expect(documented.filter((name) => !SERVER_SETTINGS.includes(name))).toEqual([])
    expect(SERVER_SETTINGS).toContain("NODE_OPTIONS")
  })
})
