import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { inject } from "vitest"
import { buildServer } from "../../scripts/buildServer.ts"
import { flagsNotIn, serverNodeFlags } from "../../scripts/serverNodeFlags.ts"

declare module "vitest" {
  export interface ProvidedContext {
    /** `npm start`'s bundle, built once for the run by `buildServerBundleForRun`. */
    serverBundle: string
  }
}

const repositoryRoot = fileURLToPath(new URL("../../", import.meta.url))

/**
 * Builds `npm start`'s server (scripts/buildServer.ts) once for a test run, into a folder of its
 * own under dist/ (the externals resolve from node_modules as they do for dist/server.mjs, and two
 * runs never overwrite each other's). Answers the bundle's path and what removes the folder.
 */
export const buildServerBundleForRun = async (): Promise<{ readonly file: string; readonly remove: () => void }> => {
  // A fresh clone has no dist/ until its first build.
  mkdirSync(join(repositoryRoot, "dist"), { recursive: true })
  const folder = mkdtempSync(join(repositoryRoot, "dist", "test-run-"))
  const file = await buildServer(join(relative(repositoryRoot, folder), "server.mjs"))
  return { file, remove: () => rmSync(folder, { recursive: true, force: true }) }
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
