import { describe, expect, it } from "@effect/vitest"
import { UploadConfig } from "@retail/service-upload"
import { Effect, Layer } from "effect"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { removeStaleSpools, STALE_AFTER_MS, StaleSpoolsRemoval } from "../src/spool/StaleSpools.ts"

const HOUR = 3_600_000

/** A spool folder with one file, both last changed `ageMs` ago (the folder's file `fileAgeMs` ago, if given). */
const folder = (dir: string, name: string, ageMs: number, fileAgeMs = ageMs) => {
  const path = join(dir, name)
  mkdirSync(path)
  writeFileSync(join(path, "load.spool"), "B1 2\n[]")
  const at = (ms: number) => new Date(Date.now() - ms)
  utimesSync(join(path, "load.spool"), at(fileAgeMs), at(fileAgeMs))
  utimesSync(path, at(ageMs), at(ageMs))
  return path
}

describe("stale spool folders", () => {
  it.effect("are those of file loads left untouched for STALE_AFTER_MS: a folder still written to, and anything else in SPOOL_DIR, stay", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "stale-spools-"))
      try {
        folder(dir, "retail-load-kil1ed", STALE_AFTER_MS + HOUR)
        folder(dir, "retail-csv-kil1ed", STALE_AFTER_MS + HOUR)
        // Made long ago, its file still written to: a long load of another process sharing SPOOL_DIR.
        folder(dir, "retail-load-busy01", STALE_AFTER_MS + HOUR, 1_000)
        folder(dir, "retail-load-fresh1", 1_000)
        folder(dir, "someone-else", STALE_AFTER_MS + HOUR)
        // Not of mkdtemp's shape: another program's folder of a like name.
        folder(dir, "retail-load-archive", STALE_AFTER_MS + HOUR)
        const removed = yield* removeStaleSpools(dir, Date.now())
        expect([...removed].sort()).toEqual(["retail-csv-kil1ed", "retail-load-kil1ed"])
        expect(readdirSync(dir).sort()).toEqual(["retail-load-archive", "retail-load-busy01", "retail-load-fresh1", "someone-else"])
        expect(yield* removeStaleSpools(join(dir, "missing"), Date.now())).toEqual([])
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }))

  it.live("are removed at start, in the background", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "stale-spools-"))
      try {
        const killed = folder(dir, "retail-load-kil1ed", STALE_AFTER_MS + HOUR)
        yield* Effect.gen(function*() {
          for (let i = 0; i < 500 && existsSync(killed); i++) yield* Effect.sleep("20 millis")
        }).pipe(Effect.provide(StaleSpoolsRemoval.pipe(Layer.provide(UploadConfig.test({ spoolDir: dir })))))
        expect(existsSync(killed)).toBe(false)
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }))
})
