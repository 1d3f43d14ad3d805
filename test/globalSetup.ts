import type { TestProject } from "vitest/node"
import { buildServerBundleForRun } from "./support/ServerBundle.ts"

/** The tests that start the server as a process of its own run `npm start`'s bundle, built once here. */
export default async function setup(project: TestProject) {
  const bundle = await buildServerBundleForRun()
  project.provide("serverBundle", bundle.file)
  return bundle.remove
}
