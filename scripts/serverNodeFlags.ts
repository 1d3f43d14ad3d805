import { Schema } from "effect"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

const packageJsonFile = fileURLToPath(new URL("../package.json", import.meta.url))
const PackageJson = Schema.Struct({ scripts: Schema.Struct({ start: Schema.String }) })
const startScriptOfPackage = (): string =>
  Schema.decodeUnknownSync(Schema.fromJsonString(PackageJson))(readFileSync(packageJsonFile, "utf8")).scripts.start
const START = /(?:^|&&\s*)node((?:\s+--[\w-]+(?:=\S+)?)*)\s+dist\/server\.mjs\s*$/

/**
 * The Node.js flags `npm start` runs the server with (package.json's `start` script:
 * `node <flags> dist/server.mjs`), so that the benchmarks' servers run as production does.
 * Throws when the script does not have that shape.
 */
export const serverNodeFlags = (startScript: string = startScriptOfPackage()): ReadonlyArray<string> => {
  const match = START.exec(startScript)
  if (match === null) throw new Error(`package.json's start script does not end with "node [--flags] dist/server.mjs": ${startScript}`)
  return (match[1] ?? "").trim().split(/\s+/).filter((flag) => flag !== "")
}

const flagName = (flag: string): string => flag.split("=")[0] ?? flag

/** `flags` without those `nodeOptions` (a NODE_OPTIONS string) sets too: command-line flags would win over NODE_OPTIONS. */
export const flagsNotIn = (flags: ReadonlyArray<string>, nodeOptions: string | undefined): ReadonlyArray<string> => {
  const overridden = new Set((nodeOptions ?? "").split(/\s+/).filter((option) => option.startsWith("--")).map(flagName))
  return flags.filter((flag) => !overridden.has(flagName(flag)))
}
