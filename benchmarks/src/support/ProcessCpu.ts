import { readFileSync } from "node:fs"

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
