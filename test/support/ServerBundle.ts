import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { inject } from "vitest"
import { buildServer } from "../../scripts/buildServer.ts"
import { flagsNotIn, serverNodeFlags } from "../../scripts/serverNodeFlags.ts"
import { isRunning } from "./ProcessTable.ts"

declare module "vitest" {
  export interface ProvidedContext {
    /** `npm start`'s bundle, built once for the run by `buildServerBundleForRun`. */
    serverBundle: string
  }
}

const repositoryRoot = fileURLToPath(new URL("../../", import.meta.url))
const distDir = join(repositoryRoot, "dist")
const RUN_FOLDER = /^test-run-(\d+)-/

/** Folders of runs whose process is gone: killed or interrupted before their teardown. */
const removeAbandonedRunFolders = () => {
  if (!existsSync(distDir)) return
  for (const entry of readdirSync(distDir)) {
    const pid = RUN_FOLDER.exec(entry)?.[1]
    if (pid !== undefined && !isRunning(Number(pid))) rmSync(join(distDir, entry), { recursive: true, force: true })
  }
}

/**
 * Builds `npm start`'s server (scripts/buildServer.ts) once for a test run, into a folder of its
 * own under dist/ named after the run's process (the externals resolve from node_modules as they do
 * for dist/server.mjs, and two runs never overwrite each other's). Answers the bundle's path and what
 * removes the folder; the folder also goes when the process exits, and the next run removes those of
 * runs that died first. Built once per run: a watch-mode rerun keeps the bundle the run started with.
 */
export const buildServerBundleForRun = async (): Promise<{ readonly file: string; readonly remove: () => void }> => {
  removeAbandonedRunFolders()
  // A fresh clone has no dist/ until its first build.
  mkdirSync(distDir, { recursive: true })
  const folder = mkdtempSync(join(distDir, `test-run-${process.pid}-`))
  const remove = () => rmSync(folder, { recursive: true, force: true })
  process.once("exit", remove)
  try {
    return { file: await buildServer(join(relative(repositoryRoot, folder), "server.mjs")), remove }
  } catch (error) {
    remove()
    throw error
  }
}

/**
 * The arguments of `node` that run the server as `npm start` does: its bundle with its Node.js
 * flags, but those `nodeOptions` set (a test's own heap limit, say), which come first.
 * A server started by a test is the product users run, not the sources under a TypeScript loader.
 */
export const serverArgs = (nodeOptions: ReadonlyArray<string> = []): ReadonlyArray<string> => [
  ...flagsNotIn(serverNodeFlags(), nodeOptions.join(" ")),
  ...nodeOptions,
  inject("serverBundle")
]
