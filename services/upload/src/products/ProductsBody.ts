import { LoadError, makeFirstOccurrences } from "@retail/domain"
import { type BlockOutcomeSink, type JsonBlock, type JsonBlockResult, productsBodyBlocks, readBlockOutcomes, splitProductsBody, validateJsonBlock } from "@retail/ingest"
import { Effect, Option } from "effect"
import { isUtf8 } from "node:buffer"
import { JsonValidationPool } from "../json/JsonValidationPool.ts"
import type { BufferPool } from "../publish/BufferPool.ts"

/** About 280 products of 1.8 KB: a 3000-product body is 11 blocks, which two threads share evenly. */
const BLOCK_BYTES = 512 * 1024

export interface ProductsBodyLimits {
  /** LOAD_PRODUCTS_MAX_VALUES. */
  readonly maxValues: number
  /** MAX_PRODUCTS_PER_LOAD. */
  readonly maxProducts: number
}

/** A body's products validated: the failures in product order, the accepted products as JSON bytes (views of the body). */
export interface ValidatedProducts {
  readonly received: number
  readonly errors: ReadonlyArray<LoadError>
  readonly accepted: ReadonlyArray<Uint8Array>
}

/** How the bodies' pool makes a buffer: a SharedArrayBuffer's view, which threads read in place. */
export const sharedBuffer = (length: number): Uint8Array => new Uint8Array(new SharedArrayBuffer(length))

/** The body in shared memory: as it is when it was read into the pool, else copied into a buffer of it. */
const shared = (bytes: Uint8Array, buffers: BufferPool) =>
  bytes.buffer instanceof SharedArrayBuffer
    ? Effect.succeed(bytes)
    : Effect.map(
      Effect.acquireRelease(Effect.sync(() => buffers.take(bytes.length)), (taken) => Effect.sync(() => buffers.give(taken))),
      (copy) => {
        copy.set(bytes)
        return copy
      }
    )

/** With no threads: one block at a time on this thread, letting other requests' I/O in between. */
const validateHere = (blocks: ReadonlyArray<JsonBlock>) =>
  Effect.forEach(blocks, (block) => Effect.andThen(Effect.yieldNow, Effect.sync(() => validateJsonBlock(block))))

/** Every block at once on the threads (they queue in the pool); results in block order. */
const validateOnThreads = (pool: JsonValidationPool["Service"], blocks: ReadonlyArray<JsonBlock>) =>
  Effect.forEach(blocks, pool.validate, { concurrency: "unbounded" }).pipe(
    Effect.map(Option.some),
    Effect.catchTag("ValidationThreadFailed", (error) =>
      Effect.as(Effect.logWarning(`a validation thread failed a /load-products body, which is validated on the event loop instead: ${error.message}`), Option.none()))
  )

const toValidated = (results: ReadonlyArray<JsonBlockResult>, received: number): Option.Option<ValidatedProducts> => {
  if (results.some((result) => result.fault !== undefined)) return Option.none()
  const errors: Array<LoadError> = []
  const accepted: Array<Uint8Array> = []
  const firstOccurrence = makeFirstOccurrences()
  const sink: BlockOutcomeSink = {
    fail: (failure) => errors.push(new LoadError(failure, { disableChecks: true })),
    acceptBytes: (json: Uint8Array) => accepted.push(json),
    acceptText: (json: string) => accepted.push(Buffer.from(json, "utf8"))
  }
  for (const result of results) readBlockOutcomes(result, firstOccurrence, sink)
  return Option.some({ received, errors, accepted })
}

/**
 * The fast way through a `/load-products` body of the usual shape (`{"products":[...]}`, valid UTF-8,
 * within its limits): one pass on this thread delimits the products (`splitProductsBody`), and the
 * JsonValidationPool's threads parse and validate them a block at a time where they are in the body
 * (a SharedArrayBuffer: from `buffers`, as ProductLoads reads it), as file loads' products are
 * (`validateJsonBlock`); an accepted product keeps the bytes it came in when validation kept all of
 * it. The body is never decoded or parsed whole, nothing is re-encoded but products with unknown
 * keys, and the event loop is free while the threads work. The accepted products are views of the
 * body: valid while the scope its buffer belongs to is open.
 *
 * `None`: the body is of another shape, over a limit or not well-formed JSON (or a thread failed):
 * the caller reads it the general way, which answers as it always did.
 */
export const validateProductsBody = (bytes: Uint8Array, company: string, limits: ProductsBodyLimits, buffers: BufferPool) =>
  Effect.gen(function*() {
    if (!isUtf8(bytes)) return Option.none<ValidatedProducts>()
    const layout = splitProductsBody(bytes, limits)
    if (layout === undefined) return Option.none<ValidatedProducts>()
    const blocks = productsBodyBlocks(yield* shared(bytes, buffers), layout, company, BLOCK_BYTES)
    const pool = yield* JsonValidationPool
    const results = pool.threads === 0 ? Option.some(yield* validateHere(blocks)) : yield* validateOnThreads(pool, blocks)
    return Option.flatMap(results, (done) => toValidated(done, layout.count))
  })
