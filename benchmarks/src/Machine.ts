import { cpus, loadavg, totalmem } from "node:os"
import type { Infrastructure } from "./Report.ts"

export const machine = (loadAverageAtStart: ReadonlyArray<number>) => ({
  cores: cpus().length,
  cpuModel: cpus()[0]?.model.trim() ?? "unknown",
  totalMemoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
  node: process.version,
  platform: `${process.platform}/${process.arch}`,
  loadAverageAtStart: [...loadAverageAtStart],
  loadAverageAtEnd: loadavg().map((l) => Math.round(l * 100) / 100)
})

const setting = (name: string): string | undefined => {
  const value = process.env[name]
  return value === undefined || value === "" ? undefined : value
}

export const databaseUrl = (): string | undefined => setting("DATABASE_URL")
export const redisUrl = (): string | undefined => setting("REDIS_URL")

/** The same choice the server makes (services/server Infrastructure.ts). */
export const infrastructure = (): Infrastructure => ({
  database: databaseUrl() === undefined ? "embedded PGlite" : "PostgreSQL (DATABASE_URL)",
  queue: redisUrl() === undefined ? "in-process" : "Redis (REDIS_URL)"
})
