import { StorageFailed } from "@retail/api"
import { Context, Effect, Layer } from "effect"
import { UploadConfig } from "../UploadConfig.ts"
import type { CsvJoinResult, CsvJoinTask } from "./CsvJoinTask.ts"
import { makeWorkerThreads, type ThreadEntry, threadEntry } from "../threads/WorkerThreads.ts"

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

/** CsvJoinWorker.ts from the sources, dist/server.csv-join-worker.mjs bundled. */
export const csvJoinWorkerEntry = (): ThreadEntry => threadEntry(import.meta.url, "./CsvJoinWorker.ts", "csv-join-worker")

const joinFailed = (message: string) =>
  new StorageFailed({ message: `The CSV files could not be joined (${message}); nothing was published. Retry later.` })

const isJoinResult = (value: unknown): value is CsvJoinResult =>
  typeof value === "object" && value !== null && "accepted" in value && value.accepted instanceof Uint8Array &&
  "products" in value && value.products instanceof Uint8Array && "ends" in value && value.ends instanceof Uint32Array &&
  "errors" in value && Array.isArray(value.errors)

/**
 * Worker threads that join, validate and encode CSV partitions (CsvJoinTask.ts), `threads` at most,
 * started on demand. A thread that dies fails its task (the load answers 500 StorageFailed and publishes
 * nothing) and a fresh one takes the next task; closing the scope drains and stops them.
 */
export const makeCsvJoinPool = (
  threads: number,
  options: {
    /** Caps each thread's old generation (MiB); a partition that needs more kills its thread, failing the load. 0: V8's default. */
    readonly heapMb?: number
    readonly entry?: ThreadEntry
  } = {}
) =>
  Effect.map(
    makeWorkerThreads<CsvJoinTask, unknown>({
      entry: options.entry ?? csvJoinWorkerEntry(),
      threads,
      resourceLimits: {
        maxYoungGenerationSizeMb: YOUNG_GENERATION_MB,
        ...((options.heapMb ?? 0) > 0 ? { maxOldGenerationSizeMb: options.heapMb } : {})
      },
      idleMs: IDLE_MS,
      closeMs: CLOSE_MS
    }),
    (pool) => ({
      threads,
      /** Joins one partition in a worker thread; interrupting it aborts the task (its thread is stopped). */
      run: (task: CsvJoinTask): Effect.Effect<CsvJoinResult, StorageFailed> =>
        pool.run(task).pipe(
          Effect.mapError((failure) => joinFailed(failure.message)),
          Effect.filterOrFail(isJoinResult, () => joinFailed("a join worker answered something else than a joined partition"))
        )
    })
  )

export type CsvJoinThreads = Effect.Success<ReturnType<typeof makeCsvJoinPool>>

/** The process's join threads, or none when CSV_JOIN_THREADS is 0 (partitions are then joined in the request's fiber). */
export class CsvJoinPool extends Context.Service<CsvJoinPool, CsvJoinThreads | undefined>()("@retail/upload/CsvJoinPool") {
  static readonly layer = Layer.effect(
    CsvJoinPool,
    Effect.flatMap(UploadConfig, ({ csvJoinThreadHeapMb, csvJoinThreads }) =>
      csvJoinThreads === 0 ? Effect.succeed(undefined) : makeCsvJoinPool(csvJoinThreads, { heapMb: csvJoinThreadHeapMb }))
  )
}
