import { spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { BenchmarkFailure } from "../Benchmark.ts"

const MAIN = fileURLToPath(new URL("./bareServerMain.ts", import.meta.url))

export interface BareServer {
  readonly url: string
  readonly pid: number
  readonly stop: () => Promise<void>
}

/**
 * The limit of an HTTP endpoint: a bare node:http server in its own process that reads the request
 * body and answers the given bytes for each path (the same JSON the real endpoint answered), or,
 * for a key `${path} ${body}`, for that path and body (requests whose bodies vary).
 */
export const startBareServer = async (answers: Readonly<Record<string, string>>): Promise<BareServer> => {
  const file = join(tmpdir(), `retail-bench-bare-${crypto.randomUUID()}.json`)
  writeFileSync(file, JSON.stringify(answers))
  const child = spawn(process.execPath, ["--import", "tsx", MAIN, file], { stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk
      const match = /listening (\d+)/.exec(output)
      if (match !== null) resolve(`http://127.0.0.1:${match[1] ?? "0"}`)
    })
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk
    })
    child.on("exit", (code) => reject(new BenchmarkFailure(`the bare node:http server exited with code ${String(code)}: ${output}`)))
  })
  return {
    url,
    pid: child.pid ?? 0,
    stop: async () => {
      if (child.exitCode !== null) return
      const exited = new Promise((r) => child.once("exit", r))
      child.kill("SIGTERM")
      await exited
    }
  }
}
