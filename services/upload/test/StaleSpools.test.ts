import { describe, expect, it } from "@effect/vitest"
import { UploadConfig } from "@retail/service-upload"
import { Duration, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, watch, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { basename, join } from "node:path"
import { makeCsvPartitions } from "../src/csv/CsvPartitions.ts"
import { makeLoadSpool } from "../src/spool/LoadSpool.ts"
import { removeSpoolFolder } from "../src/spool/SpoolFolder.ts"
import { removeStaleSpools, STALE_AFTER_MS, StaleSpoolsRemoval, SWEEP_EVERY } from "../src/spool/StaleSpools.ts"

const HOUR = 3_600_000

/** A spool directory of the test's own, removed when the test ends. */
const spoolDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "stale-spools-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

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
      const dir = yield* spoolDir
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
    }))

  it.effect("a removal cut short is finished at the next sweep, however recently it changed", () =>
    Effect.gen(function*() {
      const dir = yield* spoolDir
      // What a kill between the rename and the delete leaves: the renamed folder, just changed.
      folder(dir, "retail-removing-load-kil1ed", 0)
      folder(dir, "retail-removing-csv-kil1ed", 0)
      folder(dir, "retail-load-fresh1", 1_000)
      const removed = yield* removeStaleSpools(dir, Date.now())
      expect([...removed].sort()).toEqual(["retail-removing-csv-kil1ed", "retail-removing-load-kil1ed"])
      expect(readdirSync(dir)).toEqual(["retail-load-fresh1"])
    }))

  it.effect("a spool folder is renamed as being removed before its files are deleted, and nothing of it is left", () =>
    Effect.gen(function*() {
      const dir = yield* spoolDir
      const path = folder(dir, "retail-load-ended1", 0)
      // Killed as it deletes: by then the folder no longer carries a spool folder's name, so the next sweep removes it at once.
      const killed = yield* Effect.flip(Effect.tryPromise(() =>
        removeSpoolFolder(path, async (target) => {
          throw new Error(`killed while deleting ${basename(target)}`)
        })
      ))
      expect(String(killed.cause)).toContain("killed while deleting retail-removing-load-ended1")
      expect(readdirSync(dir)).toEqual(["retail-removing-load-ended1"])
      expect(yield* removeStaleSpools(dir, Date.now())).toEqual(["retail-removing-load-ended1"])
      // Uninterrupted, nothing of it is left.
      yield* Effect.promise(() => removeSpoolFolder(folder(dir, "retail-csv-ended2", 0)))
      expect(readdirSync(dir)).toEqual([])
      // Another folder of the directory, not of a spool's name, is removed where it is.
      const other = join(dir, "elsewhere")
      mkdirSync(other)
      yield* Effect.promise(() => removeSpoolFolder(other))
      expect(readdirSync(dir)).toEqual([])
    }))

  it.live("a load's spool and a CSV load's partitions go through that rename when their load ends", () =>
    Effect.gen(function*() {
      const dir = yield* spoolDir
      // The names the spool directory saw (inotify: both names of a rename are reported).
      const seen = new Set<string>()
      const watcher = watch(dir, (_, name) => name !== null && seen.add(name))
      yield* Effect.addFinalizer(() => Effect.sync(() => watcher.close()))
      yield* Effect.scoped(Effect.asVoid(makeLoadSpool(dir)))
      yield* Effect.scoped(Effect.asVoid(makeCsvPartitions(dir, 2)))
      for (let i = 0; i < 100 && [...seen].filter((name) => name.startsWith("retail-removing-")).length < 2; i++) yield* Effect.sleep("10 millis")
      expect([...seen].filter((name) => name.startsWith("retail-removing-")).map((name) => name.replace(/-[A-Za-z0-9]{6}$/, "")).sort())
        .toEqual(["retail-removing-csv", "retail-removing-load"])
      expect(readdirSync(dir)).toEqual([])
    }))

  it.live("are removed at start, in the background", () =>
    Effect.gen(function*() {
      const dir = yield* spoolDir
      const killed = folder(dir, "retail-load-kil1ed", STALE_AFTER_MS + HOUR)
      yield* Effect.gen(function*() {
        for (let i = 0; i < 500 && existsSync(killed); i++) yield* Effect.sleep("20 millis")
      }).pipe(Effect.provide(StaleSpoolsRemoval.pipe(Layer.provide(UploadConfig.test({ spoolDir: dir })))))
      expect(existsSync(killed)).toBe(false)
    }))

  it.effect("are looked for again every SWEEP_EVERY: a folder that turns stale after the start goes within the next sweep", () =>
    Effect.gen(function*() {
      const dir = yield* spoolDir
      yield* TestClock.setTime(Date.now())
      // Left by a process killed half an hour before this one started: not stale at the start.
      const killed = folder(dir, "retail-load-kil1ed", STALE_AFTER_MS - 30 * 60_000)
      const gone = Effect.promise(async () => {
        for (let i = 0; i < 100 && existsSync(killed); i++) await new Promise((resolve) => setTimeout(resolve, 10))
        return !existsSync(killed)
      })
      yield* Effect.gen(function*() {
        expect(yield* gone).toBe(false)
        yield* TestClock.adjust(SWEEP_EVERY)
        expect(yield* gone).toBe(true)
      }).pipe(Effect.provide(StaleSpoolsRemoval.pipe(Layer.provide(UploadConfig.test({ spoolDir: dir })))))
      expect(Duration.toMillis(SWEEP_EVERY)).toBeLessThan(STALE_AFTER_MS)
    }))
})
