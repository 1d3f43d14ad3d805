import { Context, Data, Effect, Layer } from "effect"
import { UploadConfig } from "../UploadConfig.ts"
import { blockTransfers, type JsonBlock } from "@retail/ingest"
import type { JsonValidationTask, ValidatedBlock } from "./JsonValidationTask.ts"
import { makeWorkerThreads, type ThreadEntry, threadEntry } from "../threads/WorkerThreads.ts"

/** A validation thread failed a block (it crashed, or threw): the load it belongs to cannot go on. */
export class ValidationThreadFailed extends Data.TaggedError("ValidationThreadFailed")<{ readonly message: string }> {}

/** Idle threads exit after this long, so that a server between file loads holds none. */
const IDLE_THREAD_MS = 30_000
/** How long shutdown waits for blocks being validated (the pool is released after the listeners drained). */
const CLOSE_MS = 10_000
/**
 * A thread's heap: its garbage is short-lived (one product at a time), so a small young generation
 * costs little CPU and keeps RSS down (docs/file-loads.md); the old generation's cap leaves room for
 * the largest product (16 MiB of JSON) and bounds a thread that would grow without end.
 */
const THREAD_HEAP = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 256 }

/** JsonValidationThread.ts from the sources, dist/server.json-validation-thread.mjs bundled. */
export const defaultThreadEntry = (): ThreadEntry => threadEntry(import.meta.url, "./JsonValidationThread.ts", "json-validation-thread")

/**
 * The threads that parse and validate JSON file loads' products (JSON_VALIDATION_THREADS of them,
 * shared by every load of the process; 0: none, loads validate on the event loop's thread).
 * Blocks move to the threads by transfer; a thread that dies fails its load and is replaced.
 * Threads start with the first block and exit when idle.
 */
export class JsonValidationPool extends Context.Service<JsonValidationPool, {
  readonly threads: number
  /** Validates a block; with `encodeRows`, also encodes its accepted products' columns (JsonValidationTask.ts). */
  readonly validate: (block: JsonBlock, encodeRows?: boolean) => Effect.Effect<ValidatedBlock, ValidationThreadFailed>
}>()("@retail/upload/JsonValidationPool") {
  static readonly make = (threads: number, entry: ThreadEntry = defaultThreadEntry()) =>
    Layer.effect(
      JsonValidationPool,
      Effect.gen(function*() {
        if (threads === 0) return { threads, validate: () => Effect.die(new Error("no JSON validation threads (JSON_VALIDATION_THREADS=0)")) }
        const pool = yield* makeWorkerThreads<JsonValidationTask, ValidatedBlock>({
          entry,
          threads,
          resourceLimits: THREAD_HEAP,
          idleMs: IDLE_THREAD_MS,
          closeMs: CLOSE_MS
        })
        return {
          threads,
          validate: (block: JsonBlock, encodeRows = false) =>
            pool.run({ block, encodeRows }, blockTransfers(block)).pipe(
              Effect.mapError((failure) => new ValidationThreadFailed({ message: failure.message }))
            )
        }
      })
    )

  static readonly layer = Layer.unwrap(Effect.map(UploadConfig, (config) => JsonValidationPool.make(config.jsonValidationThreads)))
}
