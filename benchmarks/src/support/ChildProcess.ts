import { spawn } from "node:child_process"
import { BenchmarkFailure } from "../Benchmark.ts"

export interface Finished {
  readonly stdout: string
  readonly stderr: string
}

/**
 * Runs a command to its end; a non-zero exit is a BenchmarkFailure carrying the tail of its stderr.
 * `onStderr` sees its stderr as it comes (a process saying where it is).
 */
export const runToEnd = (
  command: string,
  args: ReadonlyArray<string>,
  what: string,
  timeoutMs = 30 * 60_000,
  onStderr?: (chunk: string) => void
): Promise<Finished> =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
    })
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000)
      onStderr?.(chunk)
    })
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
    child.on("error", (error) => {
      clearTimeout(timer)
      reject(new BenchmarkFailure(`${what} could not start: ${error.message}`))
    })
    child.on("close", (code, signal) => {
      clearTimeout(timer)
      if (code === 0) resolve({ stdout, stderr })
      else reject(new BenchmarkFailure(`${what} exited with ${signal ?? `code ${String(code)}`}: ${stderr.trim().split("\n").slice(-5).join(" / ")}`))
    })
  })
