import { readdirSync, readFileSync } from "node:fs"

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100

/**
 * CPU time (user + system, every thread: worker threads included) another process has used so far, from
 * Linux /proc/<pid>/stat; undefined where there is no /proc.
 */
export const processCpuSeconds = (pid: number): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // The fields after the command name (in parentheses, which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND
  } catch {
    return undefined
  }
}

/** What `measure` gives, and the CPU seconds process `pid` used meanwhile (undefined where there is no /proc). */
export const cpuOfDuring = async <A>(pid: number, measure: () => Promise<A>): Promise<{ readonly result: A; readonly cpuSeconds: number | undefined }> => {
  const before = processCpuSeconds(pid)
  const result = await measure()
  const after = processCpuSeconds(pid)
  return { result, cpuSeconds: before === undefined || after === undefined ? undefined : after - before }
}

/** CPU seconds used so far by every process of this machine whose command is `command` (PostgreSQL's backends and helpers, say). */
export const commandCpuSeconds = (command: string): number | undefined => {
  try {
    let total = 0
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue
      try {
        if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() !== command) continue
      } catch {
        continue
      }
      total += processCpuSeconds(Number(entry)) ?? 0
    }
    return total
  } catch {
    return undefined
  }
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
  const delta = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : b - a)
  const shares = {
    servers: delta(before.servers, after.servers),
    postgres: delta(before.postgres, after.postgres),
    redis: delta(before.redis, after.redis)
  }
  return {
    result,
    ...(shares.servers === undefined ? {} : { servers: shares.servers }),
    ...(shares.postgres === undefined ? {} : { postgres: shares.postgres }),
    ...(shares.redis === undefined ? {} : { redis: shares.redis })
  }
}
