import { type ChildProcess, spawn } from "node:child_process"
import { Effect } from "effect"
import { serverArgs } from "./ServerBundle.ts"
import { testSettings } from "./TestServer.ts"

export interface ServerProcess {
  readonly baseUrl: string
  readonly child: ChildProcess
  /** Everything the process wrote so far (stdout and stderr), for failure messages. */
  readonly output: () => string
}

const LISTENING = /Listening on http:\/\/[^:]+:(\d+)/

/**
 * The server as its own Node.js process, as `npm start` runs it (its bundle and Node.js flags, see
 * ServerBundle.ts), with the test settings plus `env`, and `nodeOptions` such as a heap limit
 * (which win over npm start's). Killed when the scope closes.
 */
export const startServerProcess = (env: Record<string, string>, nodeOptions: ReadonlyArray<string> = []) =>
  Effect.acquireRelease(
    Effect.callback<ServerProcess, Error>((resume) => {
      const child = spawn(process.execPath, serverArgs(nodeOptions), {
        env: { ...process.env, ...testSettings(env) },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let output = ""
      let started = false
      const onOutput = (chunk: Buffer) => {
        output += chunk.toString("utf8")
        const listening = LISTENING.exec(output)
        if (!started && listening !== null) {
          started = true
          resume(Effect.succeed({ baseUrl: `http://127.0.0.1:${listening[1]}`, child, output: () => output }))
        }
      }
      child.stdout.on("data", onOutput)
      child.stderr.on("data", onOutput)
      child.on("exit", (code, signal) => {
        if (!started) resume(Effect.fail(new Error(`server exited (${code ?? signal}) before listening:\n${output}`)))
      })
    }),
    ({ child }) =>
      Effect.callback<void>((resume) => {
        if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
        child.once("exit", () => resume(Effect.void))
        child.kill("SIGKILL")
      })
  )
