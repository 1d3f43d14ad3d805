import { readFileSync, writeFileSync } from "node:fs"

const MIB = 1024

const statusKiB = (pid: number, field: "VmRSS" | "VmHWM"): number | undefined => {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))
    return match?.[1] === undefined ? undefined : Number(match[1])
  } catch {
    return undefined
  }
}

/**
 * Peak resident memory of another process, from Linux /proc: VmHWM (the kernel's own high-water
 * mark, reset by writing 5 to clear_refs) and, as a fallback, VmRSS polled every 50 ms.
 */
export const watchRss = (pid: number) => {
  let polledPeakKiB = 0
  let highWaterMarkReset = false
  const poll = () => {
    polledPeakKiB = Math.max(polledPeakKiB, statusKiB(pid, "VmRSS") ?? 0)
  }
  const timer = setInterval(poll, 50)
  timer.unref()
  return {
    /** Starts a new measurement: the peak from now on. */
    reset: (): void => {
      try {
        writeFileSync(`/proc/${pid}/clear_refs`, "5")
        highWaterMarkReset = true
      } catch {
        highWaterMarkReset = false
      }
      polledPeakKiB = 0
      poll()
    },
    currentMiB: (): number => (statusKiB(pid, "VmRSS") ?? 0) / MIB,
    peakMiB: (): number => {
      poll()
      const hwm = highWaterMarkReset ? statusKiB(pid, "VmHWM") ?? 0 : 0
      return Math.max(hwm, polledPeakKiB) / MIB
    },
    /** Whether the figures can be trusted: /proc is there (Linux). */
    available: (): boolean => statusKiB(pid, "VmRSS") !== undefined,
    stop: (): void => clearInterval(timer)
  }
}
