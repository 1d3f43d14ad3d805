import { StorageFailed } from "@retail/api"
import { Context, Duration, Effect, Layer } from "effect"
import { Piscina } from "piscina"
import { UploadConfig } from "../UploadConfig.ts"
import type { CsvJoinResult, CsvJoinTask } from "./CsvJoinTask.ts"

/** A worker thread unused this long exits; the next CSV load starts it again (it costs RSS only while loads run). */
const IDLE_MS = 30_000
/**
 * Young generation of a thread's heap, below V8's default: measured at 200k products with two threads,
 * 16 MiB cut the process's peak RSS by 30-40 MiB at the same CPU time (8 MiB: about 15 MiB less again,
 * at about 5% more CPU).
 */
const YOUNG_GENERATION_MB = 16
/** How long shutdown waits for running joins before it terminates the threads. */
const CLOSE_MS = 10_000

/**
 * The worker entry: the TypeScript source when this module runs from source (tsx, vitest), else the file
 * scripts/buildServer.ts writes beside the bundle (`dist/server.mjs` → `dist/server.csv-join-worker.mjs`).
 */
export const csvJoinWorkerEntry = (): URL => {
  const here = import.meta.url
  return here.endsWith(".ts") ? new URL("./CsvJoinWorker.ts", here) : new URL(`${here.replace(/\.m?js$/, "")}.csv-join-worker.mjs`)
}

const joinFailed = (cause: unknown) =>
  new StorageFailed({
    message: `The CSV files could not be joined (${cause instanceof Error ? cause.message : String(cause)}); nothing was published. Retry later.`
  })

const isJoinResult = (value: unknown): value is CsvJoinResult =>
  typeof value === "object" && value !== null && "accepted" in value && value.accepted instanceof Uint8Array &&
  "products" in value && value.products instanceof Uint8Array && "ends" in value && value.ends instanceof Uint32Array &&
  "errors" in value && Array.isArray(value.errors)

/**
 * Worker threads that join, validate and encode CSV partitions (CsvJoinTask.ts), `threads` at most,
 * started on demand. A thread that dies fails its task (the load answers 500 StorageFailed and publishes
 * nothing) and piscina starts a fresh one for the next task; closing the scope drains and stops them.
 */
export const makeCsvJoinPool = (
  threads: number,
  options: {
    /** Caps each thread's old generation (MiB); a partition that needs more kills its thread, failing the load. 0: V8's default. */
    readonly heapMb?: number
    readonly entry?: URL
  } = {}
) =>
  Effect.gen(function*() {
    const entry = options.entry ?? csvJoinWorkerEntry()
    const heapMb = options.heapMb ?? 0
    const pool = yield* Effect.acquireRelease(
      Effect.sync(() =>
        new Piscina({
          filename: entry.href,
          minThreads: 0,
          maxThreads: threads,
          idleTimeout: IDLE_MS,
          closeTimeout: CLOSE_MS,
          resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB, ...(heapMb > 0 ? { maxOldGenerationSizeMb: heapMb } : {}) },
          // From source, each thread loads TypeScript through tsx as the process does.
          ...(entry.pathname.endsWith(".ts") ? { execArgv: ["--import", "tsx"] } : {})
        })
      ),
      (pool) =>
        Effect.promise(() => pool.close()).pipe(
          Effect.timeout(Duration.millis(CLOSE_MS + 1_000)),
          Effect.catchAll(() => Effect.void),
          Effect.zipRight(Effect.promise(() => pool.destroy()))
        )
    )
    // piscina fails the tasks of a thread that dies while running them, but a thread that dies before it
    // is ready (out of memory while loading, a broken entry) is reported only as the pool's 'error' event,
    // and the tasks queued for it would wait forever: every task in flight fails then. The listener
    // also keeps that event from being an uncaught exception that would end the process.
    const inFlight = new Set<(cause: unknown) => void>()
    pool.on("error", (cause: unknown) => {
      for (const fail of [...inFlight]) fail(cause)
    })

    return {
      threads,
      /** Joins one partition in a worker thread; interrupting it aborts the task (piscina stops its thread). */
      run: (task: CsvJoinTask): Effect.Effect<CsvJoinResult, StorageFailed> =>
        Effect.async<CsvJoinResult, StorageFailed>((resume) => {
          const controller = new AbortController()
          const settle = (outcome: Effect.Effect<CsvJoinResult, StorageFailed>) => {
            if (!inFlight.delete(fail)) return
            resume(outcome)
          }
          const fail = (cause: unknown) => {
            settle(Effect.fail(joinFailed(cause)))
            controller.abort()
          }
          inFlight.add(fail)
          pool.run(task, { signal: controller.signal }).then(
            (value: unknown) =>
              settle(isJoinResult(value) ? Effect.succeed(value) : Effect.fail(joinFailed(new Error("a join worker answered something else than a joined partition")))),
            fail
          )
          return Effect.sync(() => {
            inFlight.delete(fail)
            controller.abort()
          })
        })
    } as const
  })

export type CsvJoinThreads = Effect.Effect.Success<ReturnType<typeof makeCsvJoinPool>>

/** The process's join threads, or none when CSV_JOIN_THREADS is 0 (partitions are then joined in the request's fiber). */
export class CsvJoinPool extends Context.Tag("@retail/upload/CsvJoinPool")<CsvJoinPool, CsvJoinThreads | undefined>() {
  static readonly layer = Layer.scoped(
    CsvJoinPool,
    Effect.flatMap(UploadConfig, ({ csvJoinThreadHeapMb, csvJoinThreads }) =>
      csvJoinThreads === 0 ? Effect.succeed(undefined) : makeCsvJoinPool(csvJoinThreads, { heapMb: csvJoinThreadHeapMb }))
  )
}
