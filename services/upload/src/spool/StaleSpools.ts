import { Duration, Effect, Layer } from "effect"
import { readdir, rm, stat } from "node:fs/promises"
import { join } from "node:path"
import { repeatInBackground } from "../BackgroundLoop.ts"
import { UploadConfig } from "../UploadConfig.ts"
import { removeSpoolFolder, REMOVING_FOLDER, SPOOL_FOLDER } from "./SpoolFolder.ts"

/**
 * A load's folder is written to while its file is read, and removed when the load ends; untouched
 * this long, it belongs to a process that was killed (kill -9, a crash, the OOM killer) before it
 * could remove it. Far longer than a load goes without writing while the upload watchdog
 * (UPLOAD_MIN_BYTES_PER_SECOND) is on, so a folder in use by another process sharing SPOOL_DIR is
 * not taken; with the watchdog off, a trickling upload could be (docs/file-loads.md).
 */
export const STALE_AFTER_MS = 6 * 3_600_000

/** When anything in `folder` (or the folder itself) was last changed. */
const lastChanged = async (folder: string): Promise<number> => {
  let latest = (await stat(folder)).mtimeMs
  for (const entry of await readdir(folder)) latest = Math.max(latest, (await stat(join(folder, entry))).mtimeMs)
  return latest
}

/**
 * Removes the spool folders in `dir` untouched for `staleAfterMs`, and at once those a removal cut
 * short left (SpoolFolder.ts); what it removed. Ones it cannot read or remove are left.
 */
export const removeStaleSpools = (dir: string, nowMs: number, staleAfterMs: number = STALE_AFTER_MS) =>
  Effect.promise(async () => {
    const removed: Array<string> = []
    const entries = await readdir(dir).catch(() => [] as Array<string>)
    for (const name of entries) {
      const folder = join(dir, name)
      try {
        if (REMOVING_FOLDER.test(name)) await rm(folder, { recursive: true, force: true })
        else if (SPOOL_FOLDER.test(name) && nowMs - (await lastChanged(folder)) >= staleAfterMs) await removeSpoolFolder(folder)
        else continue
        removed.push(name)
      } catch {
        continue
      }
    }
    return removed
  })

/** How often a server looks again: a folder a process killed later left goes within this of turning stale. */
export const SWEEP_EVERY = Duration.hours(1)

/**
 * In the background, at start and every SWEEP_EVERY: the spool folders a killed process left in
 * SPOOL_DIR (a file load cut off while it was received holds up to the whole file there) are
 * removed, and said so. A process killed and restarted finds its folder not yet stale, so a sweep at
 * start alone would leave it until the next start: on a long-lived server, for good.
 */
export const StaleSpoolsRemoval = Layer.effectDiscard(
  Effect.gen(function*() {
    const { spoolDir } = yield* UploadConfig
    const sweep = Effect.clockWith((clock) => removeStaleSpools(spoolDir, clock.currentTimeMillisUnsafe())).pipe(
      Effect.flatMap((removed) =>
        removed.length === 0
          ? Effect.void
          : Effect.logWarning(`removed ${removed.length} spool folders that killed processes or cut-short removals left in ${spoolDir}: ${removed.join(", ")}`)
      )
    )
    yield* repeatInBackground(sweep, SWEEP_EVERY, "removing stale spool folders failed; trying again at the next sweep")
  })
)
