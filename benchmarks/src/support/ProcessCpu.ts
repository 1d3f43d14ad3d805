import { readdirSync, readFileSync } from "node:fs"

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100

/** The fields of /proc/<pid>/stat after the command name (in parentheses, which may hold spaces); undefined where there is none. */
const statFields = (pid: number): ReadonlyArray<string> | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  } catch {
    return undefined
  }
}

/** Two of those fields, clock ticks, added up as seconds. */
const secondsOf = (fields: ReadonlyArray<string> | undefined, first: number, second: number): number | undefined =>
  fields === undefined ? undefined : (Number(fields[first]) + Number(fields[second])) / TICKS_PER_SECOND

/**
 * CPU time (user + system, every thread: worker threads included) another process has used so far, from
 * Linux /proc/<pid>/stat (utime and stime); undefined where there is no /proc.
 */
export const processCpuSeconds = (pid: number): number | undefined => secondsOf(statFields(pid), 11, 12)

/**
 * CPU time (user + system) of the children `pid` has waited for so far (cutime and cstime): a load
 * generator run to its end as a child process counts there once it exits.
 */
export const waitedChildrenCpuSeconds = (pid: number): number | undefined => secondsOf(statFields(pid), 13, 14)

/** What `measure` gives, and the CPU seconds process `pid` used meanwhile (undefined where there is no /proc). */
export const cpuOfDuring = async <A>(pid: number, measure: () => Promise<A>): Promise<{ readonly result: A; readonly cpuSeconds: number | undefined }> => {
  const before = processCpuSeconds(pid)
  const result = await measure()
  const after = processCpuSeconds(pid)
  return { result, cpuSeconds: before === undefined || after === undefined ? undefined : after - before }
}

/** CPU µs per request from CPU seconds over a load of `requests` (undefined without /proc, or without requests). */
export const cpuMicrosPerRequest = (cpuSeconds: number | undefined, requests: number): number | undefined =>
  cpuSeconds === undefined || requests === 0 ? undefined : (cpuSeconds * 1e6) / requests

/** CPU seconds used so far by each process of this machine whose command is `command` (PostgreSQL's backends and helpers, say), by pid. */
export const commandCpuSeconds = (command: string): ReadonlyMap<number, number> | undefined => {
  try {
    const byPid = new Map<number, number>()
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue
      try {
        if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() !== command) continue
      } catch {
        continue
      }
      const seconds = processCpuSeconds(Number(entry))
      if (seconds !== undefined) byPid.set(Number(entry), seconds)
    }
    return byPid
  } catch {
    return undefined
  }
}

/**
 * CPU seconds used so far by the PostgreSQL backends connected to `database` (their command line
 * names it: `postgres: [<cluster>:] <user> <database> <client> ...`), by pid: one database's work on a server
 * other databases share; its background processes (WAL writer, checkpointer) are not counted.
 */
export const databaseBackendsCpuSeconds = (database: string): ReadonlyMap<number, number> | undefined => {
  const byPid = commandCpuSeconds("postgres")
  if (byPid === undefined) return undefined
  const mine = new Map<number, number>()
  for (const [pid, seconds] of byPid) {
    try {
      const words = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ").trim().split(/\s+/)
      // With a cluster name the title has it first: `postgres: 15/main: <user> <database> ...`.
      const [, first = "", ...rest] = words
      const [, named] = first.endsWith(":") ? rest : [first, ...rest]
      if (words[0] === "postgres:" && named === database) mine.set(pid, seconds)
    } catch {
      continue
    }
  }
  return mine
}

/** The CPU seconds `measure` took in the backends of `database` (undefined where there is no /proc). */
export const databaseCpuDuring = async <A>(database: string, measure: () => Promise<A>): Promise<{ readonly result: A; readonly cpuSeconds: number | undefined }> => {
  const before = databaseBackendsCpuSeconds(database)
  const result = await measure()
  return { result, cpuSeconds: usedSince(before, databaseBackendsCpuSeconds(database)) }
}

/**
 * What the processes of `after` used since `before`; one started meanwhile counts from zero, and one
 * that exited meanwhile is not counted (its last seconds are lost: a short-lived backend, at most).
 */
const usedSince = (before: ReadonlyMap<number, number> | undefined, after: ReadonlyMap<number, number> | undefined): number | undefined => {
  if (before === undefined || after === undefined) return undefined
  let total = 0
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0)
  return total
}

/** CPU seconds of the given processes and of the machine's PostgreSQL and Redis, taken before and after `measure`. */
export const cpuSharesDuring = async <A>(
  pids: ReadonlyArray<number>,
  measure: () => Promise<A>
): Promise<{ readonly result: A; readonly servers?: number; readonly postgres?: number; readonly redis?: number }> => {
  const take = () => ({
    servers: pids.reduce<number | undefined>((sum, pid) => {
      const seconds = processCpuSeconds(pid)
      return sum === undefined || seconds === undefined ? undefined : sum + seconds
    }, 0),
    postgres: commandCpuSeconds("postgres"),
    redis: commandCpuSeconds("redis-server")
  })
  const before = take()
  const result = await measure()
  const after = take()
  const shares = {
    servers: before.servers === undefined || after.servers === undefined ? undefined : after.servers - before.servers,
    postgres: usedSince(before.postgres, after.postgres),
    redis: usedSince(before.redis, after.redis)
  }
  return {
    result,
    ...(shares.servers === undefined ? {} : { servers: shares.servers }),
    ...(shares.postgres === undefined ? {} : { postgres: shares.postgres }),
    ...(shares.redis === undefined ? {} : { redis: shares.redis })
  }
}
