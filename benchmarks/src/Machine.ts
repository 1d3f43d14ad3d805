import { cpus, loadavg, totalmem } from "node:os"
import type { Infrastructure } from "./Report.ts"
import { serverRuntime } from "./support/ServerProcess.ts"
import { databaseUrl, redisUrl } from "./StoreUrls.ts"

export const machine = (loadAverageAtStart: ReadonlyArray<number>) => ({
  cores: cpus().length,
  cpuModel: cpus()[0]?.model.trim() ?? "unknown",
  totalMemoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
  node: process.version,
  platform: `${process.platform}/${process.arch}`,
  loadAverageAtStart: [...loadAverageAtStart],
  loadAverageAtEnd: loadavg().map((l) => Math.round(l * 100) / 100)
})

/**
 * What the servers of a benchmark run with, for each benchmark's section of the report: the
 * runner's infrastructure, which without DATABASE_URL is an in-memory PGlite, not what `npm start`
 * runs (an embedded PostgreSQL server with its data on disk: the `embedded` benchmark measures that).
 */
export const suiteConfiguration = (): string => {
  const database = databaseUrl() === undefined
    ? "in-memory PGlite (DATA_DIR=memory://), not npm start's default embedded PostgreSQL server"
    : "PostgreSQL (DATABASE_URL)"
  const queue = redisUrl() === undefined ? "in-process queue" : "Redis (REDIS_URL)"
  const server = serverRuntime() === "tsx" ? "TypeScript sources under tsx" : "the npm start bundle with its Node flags"
  // Flags given to the servers replace npm start's and a role's of the same name (support/ServerProcess.ts): the report says so.
  const overrides = [["BENCH_SERVER_NODE_ARGS", process.env["BENCH_SERVER_NODE_ARGS"]], ["BENCH_SERVER_NODE_OPTIONS", process.env["BENCH_SERVER_NODE_OPTIONS"]]]
    .filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1].trim() !== "")
    .map(([name, value]) => `${name}=${value.trim()}`)
  const overridden = overrides.length === 0 ? "" : ` (${overrides.join(", ")}, in place of theirs and the roles' flags of the same names)`
  return `servers under test: ${database}, ${queue}, ${server}${overridden}`
}

/** The same choice the server makes (services/server Infrastructure.ts). */
export const infrastructure = (): Infrastructure => ({
  database: databaseUrl() === undefined ? "embedded PGlite in memory (DATA_DIR=memory://)" : "PostgreSQL (DATABASE_URL)",
  queue: redisUrl() === undefined ? "in-process" : "Redis (REDIS_URL)",
  server: serverRuntime() === "tsx" ? "tsx on the sources (BENCH_SERVER_RUNTIME=tsx)" : "esbuild bundle, as npm start"
})
