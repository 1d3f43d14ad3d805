import { meterWorkerPool } from "@retail/metrics"
import { Data, Duration, Effect, type Scope } from "effect"
import { Piscina } from "piscina"
import type { ResourceLimits } from "node:worker_threads"

/** A task could not be run to its end in a worker thread: the thread died, or its code threw. */
export class WorkerThreadFailed extends Data.TaggedError("WorkerThreadFailed")<{ readonly message: string }> {}

export interface ThreadEntry {
  /** File URL of the thread's module; its default export runs one task. */
  readonly filename: string
  readonly execArgv: ReadonlyArray<string>
  /** Names the pool in the metrics. */
  readonly name?: string
}

/**
 * Where a thread's code is, for a module at `moduleUrl` (pass `import.meta.url`): from the TypeScript
 * sources (tsx, vitest) the `source` file beside it, loaded through tsx in the thread; bundled
 * (dist/server.mjs), the file scripts/buildServer.ts writes beside the bundle,
 * `dist/server.<bundledName>.mjs`.
 */
export const threadEntry = (moduleUrl: string, source: string, bundledName: string): ThreadEntry =>
  moduleUrl.endsWith(".ts")
    ? { filename: new URL(source, moduleUrl).href, execArgv: ["--import", "tsx"], name: bundledName }
    : { filename: `${moduleUrl.replace(/\.m?js$/, "")}.${bundledName}.mjs`, execArgv: [], name: bundledName }

export interface WorkerThreadsOptions {
  readonly entry: ThreadEntry
  readonly threads: number
  readonly resourceLimits: ResourceLimits
  /** An idle thread exits after this long; the next task starts one again (threads cost RSS only while used). */
  readonly idleMs: number
  /** How long closing waits for running tasks before it terminates the threads. */
  readonly closeMs: number
}

export interface WorkerThreads<Task, Result> {
  readonly threads: number
  /** Runs one task; `transfer` moves those buffers to the thread. Interrupting it aborts the task. */
  readonly run: (task: Task, transfer?: ReadonlyArray<ArrayBuffer>) => Effect.Effect<Result, WorkerThreadFailed>
}

/** The `pool` label of the metrics: the bundled name (json-validation-thread, csv-join-worker), else the module's file name. */
const poolName = (entry: ThreadEntry) => entry.name ?? entry.filename.replace(/^.*\//, "")

const describe = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))

/**
 * A piscina pool of at most `threads` threads, started on demand: tasks queue when every thread is
 * busy, a thread that dies fails the task it ran and is replaced, closing the scope drains then
 * terminates. The thread module's answer is trusted to be a `Result`, as piscina's own typing does.
 */
export const makeWorkerThreads = <Task, Result>(
  options: WorkerThreadsOptions
): Effect.Effect<WorkerThreads<Task, Result>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const pool = yield* Effect.acquireRelease(
      Effect.sync(() =>
        new Piscina<Task, Result>({
          filename: options.entry.filename,
          execArgv: [...options.entry.execArgv],
          minThreads: 0,
          maxThreads: options.threads,
          idleTimeout: options.idleMs,
          closeTimeout: options.closeMs,
          resourceLimits: options.resourceLimits
        })
      ),
      (pool) =>
        Effect.promise(() => pool.close()).pipe(
          Effect.timeout(Duration.millis(options.closeMs + 1_000)),
          Effect.ignore,
          Effect.andThen(Effect.promise(() => pool.destroy()))
        )
    )
    yield* meterWorkerPool(poolName(options.entry), pool)
    // piscina fails the tasks of a thread that dies while running them, but a thread that dies before it
    // is ready (out of memory while loading, a broken entry) is reported only as the pool's 'error' event,
    // and the tasks queued for it would wait forever: every task in flight fails then. The listener
    // also keeps that event from being an uncaught exception that would end the process.
    const inFlight = new Set<(cause: unknown) => void>()
    pool.on("error", (cause: unknown) => {
      for (const fail of [...inFlight]) fail(cause)
    })

    return {
      threads: options.threads,
      run: (task, transfer = []) =>
        Effect.callback<Result, WorkerThreadFailed>((resume) => {
          const controller = new AbortController()
          const settle = (outcome: Effect.Effect<Result, WorkerThreadFailed>) => {
            if (inFlight.delete(fail)) resume(outcome)
          }
          const fail = (cause: unknown) => {
            settle(Effect.fail(new WorkerThreadFailed({ message: describe(cause) })))
            controller.abort()
          }
          inFlight.add(fail)
          pool.run(task, { signal: controller.signal, transferList: [...transfer] }).then((result) => settle(Effect.succeed(result)), fail)
          return Effect.sync(() => {
            inFlight.delete(fail)
            controller.abort()
          })
        })
    }
  })
