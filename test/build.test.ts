import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { promisify } from "node:util"
import { fileURLToPath } from "node:url"

const repositoryRoot = fileURLToPath(new URL("../", import.meta.url))

describe("npm run build (scripts/buildServer.ts run as a command, as npm start runs it)", () => {
  it("writes the server bundle and each worker thread's bundle beside it", async () => {
    const folder = mkdtempSync(join(tmpdir(), "build-"))
    try {
      const outfile = relative(repositoryRoot, join(folder, "server.mjs"))
      await promisify(execFile)(process.execPath, ["--import", "tsx", "scripts/buildServer.ts", outfile], { cwd: repositoryRoot })
      for (const file of ["server.mjs", "server.csv-join-worker.mjs", "server.json-validation-thread.mjs", "server.persist-thread.mjs"]) {
        expect(existsSync(join(folder, file)), file).toBe(true)
      }
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  }, 60_000)
})
