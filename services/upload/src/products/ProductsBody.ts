import { LoadError, makeFirstOccurrences } from "@retail/domain"
import { type BlockOutcomeSink, type JsonBlock, productsBodyBlocks, readBlockOutcomes, splitProductsBody } from "@retail/ingest"
import { Effect, Option } from "effect"
import { isUtf8 } from "node:buffer"
import { JsonValidationPool } from "../json/JsonValidationPool.ts"
import { runValidation, type ValidatedBlock } from "../json/JsonValidationTask.ts"
import type { AcceptedRow } from "../spool/ColumnsBatch.ts"
import type { BufferPool } from "../publish/BufferPool.ts"

/** About 280 products of 1.8 KB: a 3000-product body is 11 blocks, which two threads share evenly. */
const BLOCK_BYTES = 512 * 1024

export interface ProductsBodyLimits {
  /** LOAD_PRODUCTS_MAX_VALUES. */
  readonly maxValues: number
  /** MAX_PRODUCTS_PER_LOAD. */
  readonly maxProducts: number
}

/**
 * A body's accepted products: as JSON bytes (views of the body), or, with BATCH_ENTRY_FORMAT=columns,
 * as the rows the validation threads encoded them in.
 */
export type AcceptedProducts =
  | { readonly _tag: "Json"; readonly products: ReadonlyArray<Uint8Array> }
  | { readonly _tag: "Rows"; readonly products: ReadonlyArray<AcceptedRow> }

/** A body's products validated: the failures in product order, the accepted products in order. */
export interface ValidatedProducts {
  readonly received: number
  readonly errors: ReadonlyArray<LoadError>
  readonly accepted: AcceptedProducts
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
const validateHere = (blocks: ReadonlyArray<JsonBlock>, encodeRows: boolean) =>
  Effect.forEach(blocks, (block) => Effect.andThen(Effect.yieldNow, Effect.sync(() => runValidation({ block, encodeRows }))))

/** Every block at once on the threads (they queue in the pool); results in block order. */
const validateOnThreads = (pool: JsonValidationPool["Service"], blocks: ReadonlyArray<JsonBlock>, encodeRows: boolean) =>
  Effect.forEach(blocks, (block) => pool.validate(block, encodeRows), { concurrency: "unbounded" }).pipe(
    Effect.map(Option.some),
    Effect.catchTag("ValidationThreadFailed", (error) =>
      Effect.as(Effect.logWarning(`a validation thread failed a /load-products body, which is validated on the event loop instead: ${error.message}`), Option.none()))
  )

const toValidated = (results: ReadonlyArray<ValidatedBlock>, received: number, encodeRows: boolean): Option.Option<ValidatedProducts> => {
  if (results.some((result) => result.fault !== undefined)) return Option.none()
  const errors: Array<LoadError> = []
  const json: Array<Uint8Array> = []
  const rows: Array<AcceptedRow> = []
  const firstOccurrence = makeFirstOccurrences()
  const fail = (failure: Parameters<BlockOutcomeSink["fail"]>[0]) => errors.push(new LoadError(failure, { disableChecks: true }))
  for (const result of results) {
    const encoded = result.rows
    const sink: BlockOutcomeSink = encoded === undefined
      ? { fail, acceptBytes: (bytes) => json.push(bytes), acceptText: (text) => json.push(Buffer.from(text, "utf8")) }
      : { fail, acceptBytes: (_, row, productCode) => rows.push({ rows: encoded, row, productCode }), acceptText: (_, row, productCode) => rows.push({ rows: encoded, row, productCode }) }
    readBlockOutcomes(result, firstOccurrence, sink)
  }
  const accepted: AcceptedProducts = encodeRows ? { _tag: "Rows", products: rows } : { _tag: "Json", products: json }
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
export const validateProductsBody = (bytes: Uint8Array, company: string, limits: ProductsBodyLimits, buffers: BufferPool, encodeRows = false) =>
  Effect.gen(function*() {
    if (!isUtf8(bytes)) return Option.none<ValidatedProducts>()
    const layout = splitProductsBody(bytes, limits)
    if (layout === undefined) return Option.none<ValidatedProducts>()
    const blocks = productsBodyBlocks(yield* shared(bytes, buffers), layout, company, BLOCK_BYTES)
    const pool = yield* JsonValidationPool
    const results = pool.threads === 0 ? Option.some(yield* validateHere(blocks, encodeRows)) : yield* validateOnThreads(pool, blocks, encodeRows)
    return Option.flatMap(results, (done) => toValidated(done, layout.count, encodeRows))
  })
