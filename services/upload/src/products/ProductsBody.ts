import { LoadError, makeFirstOccurrences } from "@retail/domain"
import { type BlockOutcomeSink, type JsonBlock, type JsonBlockResult, productsBodyBlocks, productsBytes, readBlockOutcomes, splitProductsBody, validateJsonBlock } from "@retail/ingest"
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

/** A body's products validated: the failures in product order, the accepted products as JSON bytes (views of an arena, valid in the scope of the call). */
export interface ValidatedProducts {
  readonly received: number
  readonly errors: ReadonlyArray<LoadError>
  readonly accepted: ReadonlyArray<Uint8Array>
}

/** The SharedArrayBuffer under an arena of the pool (made by `sharedArena`). */
const sharedBufferOf = (arena: Uint8Array): SharedArrayBuffer => {
  if (!(arena.buffer instanceof SharedArrayBuffer)) throw new TypeError("a /load-products arena must be a SharedArrayBuffer's view")
  return arena.buffer
}

/** How the arenas' pool makes one: threads read a SharedArrayBuffer in place. */
export const sharedArena = (length: number): Uint8Array => new Uint8Array(new SharedArrayBuffer(length))

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
 * within its limits): one pass on this thread delimits the products (`splitProductsBody`), they are
 * copied into an arena the threads share, and the JsonValidationPool's threads parse and validate them
 * a block at a time as file loads' products are (`validateJsonBlock`); an accepted product keeps the
 * bytes it came in when validation kept all of it. The body is never decoded or parsed whole, nothing
 * is re-encoded but products with unknown keys, and the event loop is free while the threads work.
 * The arena, a SharedArrayBuffer's view from `arenas`, goes back to it when the scope closes.
 *
 * `None`: the body is of another shape, over a limit or not well-formed JSON (or a thread failed):
 * the caller reads it the general way, which answers as it always did.
 */
export const validateProductsBody = (bytes: Uint8Array, company: string, limits: ProductsBodyLimits, arenas: BufferPool) =>
  Effect.gen(function*() {
    if (!isUtf8(bytes)) return Option.none<ValidatedProducts>()
    const layout = splitProductsBody(bytes, limits)
    if (layout === undefined) return Option.none<ValidatedProducts>()
    const arena = yield* Effect.acquireRelease(Effect.sync(() => arenas.take(productsBytes(layout))), (taken) => Effect.sync(() => arenas.give(taken)))
    const blocks = productsBodyBlocks(bytes, layout, company, BLOCK_BYTES, sharedBufferOf(arena), arena.byteOffset)
    const pool = yield* JsonValidationPool
    const results = pool.threads === 0 ? Option.some(yield* validateHere(blocks)) : yield* validateOnThreads(pool, blocks)
    return Option.flatMap(results, (done) => toValidated(done, layout.count))
  })
