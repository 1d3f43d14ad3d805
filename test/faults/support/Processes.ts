import { type ChildProcess, execFile, spawn } from "node:child_process"
import { createWriteStream } from "node:fs"
import { createServer } from "node:net"
import { Deferred, Duration, Effect, type Scope } from "effect"

/** A port nobody listens on right now (the OS picks it). */
export const freePort = Effect.callback<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

export interface Exit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

/** A child process of the test, its output appended to `logFile`. */
export interface Child {
  readonly pid: number
  readonly exited: Effect.Effect<Exit>
  readonly isRunning: Effect.Effect<boolean>
  readonly kill: (signal: NodeJS.Signals) => Effect.Effect<void>
}

const watch = (child: ChildProcess) =>
  Effect.gen(function*() {
    const exited = yield* Deferred.make<Exit>()
    child.once("exit", (code, signal) => Deferred.doneUnsafe(exited, Effect.succeed({ code, signal })))
    return exited
  })

/** Spawns a process for the test's scope: SIGKILLed (and awaited) when the scope closes, unless it exited already. */
export const spawnChild = (
  command: string,
  args: ReadonlyArray<string>,
  options: {
    readonly env?: Record<string, string>
    /** Variables of the test's own environment the child must not inherit. */
    readonly unset?: ReadonlyArray<string>
    readonly cwd?: string
    readonly logFile: string
    /** Its own process group (pid = group id): killing `-pid` reaches its children too, and so does the scope's end. */
    readonly detached?: boolean
  }
): Effect.Effect<Child, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.gen(function*() {
      const log = createWriteStream(options.logFile, { flags: "a" })
      const env: Record<string, string | undefined> = { ...process.env, ...options.env }
      for (const name of options.unset ?? []) delete env[name]
      const child = spawn(command, [...args], {
        cwd: options.cwd ?? process.cwd(),
        env,
        stdio: ["ignore", "pipe", "pipe"],
        detached: options.detached ?? false
      })
      child.stdout?.pipe(log, { end: false })
      child.stderr?.pipe(log, { end: false })
      const exited = yield* watch(child)
      const pid = child.pid
      if (pid === undefined) return yield* Effect.die(new Error(`${command} did not start`))
      return {
        pid,
        exited: Deferred.await(exited),
        isRunning: Effect.map(Deferred.isDone(exited), (done) => !done),
        kill: (signal: NodeJS.Signals) => Effect.sync(() => void child.kill(signal))
      } satisfies Child
    }),
    (child) =>
      Effect.gen(function*() {
        if (options.detached === true) {
          yield* Effect.sync(() => {
            try {
              process.kill(-child.pid, "SIGKILL")
            } catch {
              // the group is gone
            }
          })
        }
        if (yield* child.isRunning) {
          yield* child.kill("SIGKILL")
          yield* child.exited
        }
      })
  )

/** Sends `signal` and measures how long the process takes to exit; after `patience` it is SIGKILLed and `millis` is Infinity. */
export const stopTimed = (child: Child, signal: NodeJS.Signals, patience: Duration.Input = "90 seconds") =>
  Effect.gen(function*() {
    const started = Date.now()
    yield* child.kill(signal)
    const exit = yield* Effect.timeout(child.exited, patience).pipe(Effect.option)
    if (exit._tag === "Some") return { ...exit.value, millis: Date.now() - started }
    yield* child.kill("SIGKILL")
    return { ...(yield* child.exited), millis: Number.POSITIVE_INFINITY }
  })

/** Runs a command to its end; fails with its output when it exits non-zero. */
export const run = (
  command: string,
  args: ReadonlyArray<string>,
  options: { readonly timeout?: Duration.Input; readonly cwd?: string } = {}
) =>
  Effect.callback<string, Error>((resume) => {
    execFile(command, [...args], { timeout: Duration.toMillis(options.timeout ?? "60 seconds"), cwd: options.cwd }, (error, stdout, stderr) => {
      resume(error === null ? Effect.succeed(stdout) : Effect.fail(new Error(`${command} ${args.join(" ")}: ${error.message}\n${stdout}\n${stderr}`)))
    })
  })

/** Polls `probe` until it succeeds, for at most `timeout`. */
export const waitUntil = <A, E, R>(what: string, probe: Effect.Effect<A, E, R>, timeout: Duration.Input = "60 seconds") =>
  Effect.gen(function*() {
    const deadline = Date.now() + Duration.toMillis(timeout)
    let last: unknown = undefined
    while (Date.now() < deadline) {
      const result = yield* Effect.result(probe)
      if (result._tag === "Success") return result.success
      last = result.failure
      yield* Effect.sleep("100 millis")
    }
    return yield* Effect.die(new Error(`${what}: not reached within ${Duration.format(Duration.fromInputUnsafe(timeout))}; last: ${String(last)}`))
  })
