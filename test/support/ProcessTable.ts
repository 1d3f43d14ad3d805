import { readdirSync, readFileSync } from "node:fs"

/** Whether a process of this pid exists (EPERM: it runs, as another user). */
export const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** A process's command line, its arguments split (Linux /proc). */
export const commandLineOf = (pid: number): ReadonlyArray<string> =>
  readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter((arg) => arg !== "")

/** The Node.js flags a process was started with: the options on its command line (the server takes none of its own). */
export const nodeFlagsOf = (pid: number): ReadonlyArray<string> => commandLineOf(pid).filter((arg) => arg.startsWith("--"))

/** The processes whose parent is `pid`, with their command lines. */
export const childrenOf = (pid: number): ReadonlyArray<{ readonly pid: number; readonly argv: ReadonlyArray<string> }> =>
  readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).flatMap((entry) => {
    try {
      // The parent's pid is the field after the command's closing parenthesis and the state.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
      return parent === pid ? [{ pid: Number(entry), argv: commandLineOf(Number(entry)) }] : []
    } catch {
      return [] // gone meanwhile
    }
  })
