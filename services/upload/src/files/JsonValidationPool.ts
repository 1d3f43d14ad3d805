import { Data, Effect, Layer } from "effect"
import { Piscina } from "piscina"
import { UploadConfig } from "../UploadConfig.ts"
import type { JsonBlock, JsonBlockResult } from "./JsonBlock.ts"

/** A validation thread failed a block (it crashed, or threw): the load it belongs to cannot go on. */
export class ValidationThreadFailed extends Data.TaggedError("ValidationThreadFailed")<{ readonly message: string }> {}

/** Idle threads exit after this long, so that a server between file loads holds none. */
const IDLE_THREAD_MS = 30_000
/**
 * A thread's heap: its garbage is short-lived (one product at a time), so a small young generation
 * costs little CPU and keeps RSS down (docs/file-loads.md); the old generation's cap leaves room for
 * the largest product (16 MiB of JSON) and bounds a thread that would grow without end.
 */
const THREAD_HEAP = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 256 }

export interface ThreadEntry {
  /** File URL of the thread's module (its default export validates one block). */
  readonly filename: string
  readonly execArgv: ReadonlyArray<string>
}

/**
 * Where the thread's code is. Bundled (dist/server.mjs), it is dist/server.json-validation-thread.mjs
 * beside the bundle (scripts/buildServer.ts); from the TypeScript sources (tsx, vitest), it is
 * JsonValidationThread.ts beside this file, loaded through tsx in the thread.
 */
export const defaultThreadEntry = (): ThreadEntry =>
  import.meta.url.endsWith(".ts")
    ? { filename: new URL("./JsonValidationThread.ts", import.meta.url).href, execArgv: ["--import", "tsx"] }
    : { filename: `${import.meta.url.replace(/\.m?js$/, "")}.json-validation-thread.mjs`, execArgv: [] }

const describe = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))

/**
 * The threads that parse and validate JSON file loads' products (JSON_VALIDATION_THREADS of them,
 * shared by every load of the process; 0: none, loads validate on the event loop's thread). A
 * piscina pool: tasks queue when every thread is busy, buffers move by transfer, a thread that
 * dies fails the task it ran and is replaced. Threads start with the first block and exit when
 * idle; closing the layer destroys the pool (a block still running fails its load).
 */
export class JsonValidationPool extends Effect.Tag("@retail/upload/JsonValidationPool")<JsonValidationPool, {
  readonly threads: number
  readonly validate: (block: JsonBlock) => Effect.Effect<JsonBlockResult, ValidationThreadFailed>
}>() {
  static readonly make = (threads: number, entry: ThreadEntry = defaultThreadEntry()) =>
    Layer.scoped(
      JsonValidationPool,
      Effect.gen(function*() {
        if (threads === 0) return { threads, validate: () => Effect.die(new Error("no JSON validation threads (JSON_VALIDATION_THREADS=0)")) }
        const pool = yield* Effect.acquireRelease(
          Effect.sync(() =>
            new Piscina<JsonBlock, JsonBlockResult>({
              filename: entry.filename,
              execArgv: [...entry.execArgv],
              minThreads: 0,
              maxThreads: threads,
              idleTimeout: IDLE_THREAD_MS,
              resourceLimits: THREAD_HEAP
            })
          ),
          (pool) => Effect.promise(() => pool.destroy())
        )
        return {
          threads,
          validate: (block: JsonBlock) =>
            Effect.tryPromise({
              try: () => pool.run(block, { transferList: [block.bytes, block.layout] }),
              catch: (cause) => new ValidationThreadFailed({ message: describe(cause) })
            })
        }
      })
    )

  static readonly layer = Layer.unwrapEffect(Effect.map(UploadConfig, (config) => JsonValidationPool.make(config.jsonValidationThreads)))
}
