import { rename, rm } from "node:fs/promises"
import { basename, dirname, join } from "node:path"

/** The folders file loads make in SPOOL_DIR (LoadSpool.ts, CsvPartitions.ts: mkdtemp's six characters after the prefix). */
export const SPOOL_FOLDER = /^retail-(load|csv)-[A-Za-z0-9]{6}$/

/** A spool folder being removed: renamed so before anything in it is deleted. */
export const REMOVING_FOLDER = /^retail-removing-(load|csv)-[A-Za-z0-9]{6}$/

/**
 * Removes a spool folder, renamed first (one atomic step) to a name that says it is being removed.
 * Deleting its files changes the folder, so a removal cut short (the process killed) would leave a
 * folder that looks freshly written, kept for STALE_AFTER_MS; renamed, the next sweep removes it at once.
 */
export const removeSpoolFolder = async (path: string, deleteFolder: (path: string) => Promise<void> = deleteRecursively): Promise<void> => {
  const name = basename(path)
  const removing = SPOOL_FOLDER.test(name) ? join(dirname(path), name.replace(/^retail-/, "retail-removing-")) : path
  const target = removing === path ? path : await rename(path, removing).then(() => removing, () => path)
  await deleteFolder(target)
}

const deleteRecursively = (path: string) => rm(path, { recursive: true, force: true })
