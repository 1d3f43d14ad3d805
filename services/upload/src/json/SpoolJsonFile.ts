import type { StorageFailed } from "@retail/api"
import { makeFirstOccurrences } from "@retail/domain"
import { type BlockOutcomeSink, type JsonBlock, JsonBlockSplitter, type JsonScanOptions, JsonSyntaxError, productItem, readBlockOutcomes, scanJsonProducts } from "@retail/ingest"
import { Effect, Fiber, Stream } from "effect"
import { JsonValidationPool, type ValidationThreadFailed } from "./JsonValidationPool.ts"
import type { ValidatedBlock } from "./JsonValidationTask.ts"
import { type SpoolOptions, type SpoolTotals, type SpoolWriter, makeSpoolWriter, spoolItems } from "../spool/SpoolItems.ts"
import { makeSpillingCodeIndex } from "../spool/LoadCodeIndex.ts"

/** About 280 products of the benchmark's 1.8 KB: a task long enough (~2 ms) to dwarf the pool's overhead per task. */
const BLOCK_BYTES = 512 * 1024
/** Blocks sent to the threads and not yet read back, per thread: one running, one queued. */
const BLOCKS_IN_FLIGHT_PER_THREAD = 2

export interface JsonFileOptions extends SpoolOptions {
  /** PRODUCT_MAX_VALUES: most JSON values in one element of the file (the scanner's default when unset). */
  readonly productMaxValues?: number | undefined
}

/** The scanner's limits, the same on both paths: it checks them on this thread before any element is parsed. */
const scanOptions = (options: JsonFileOptions): JsonScanOptions =>
  options.productMaxValues === undefined
    ? { maxElementValuesVariable: "PRODUCT_MAX_VALUES" }
    : { maxElementValues: options.productMaxValues, maxElementValuesVariable: "PRODUCT_MAX_VALUES" }

const isFault = (value: ReadonlyArray<JsonBlock> | JsonSyntaxError): value is JsonSyntaxError => value instanceof JsonSyntaxError

/** Where a validated block's products go in the spool: their JSON, or with the columns format the rows the thread encoded them in. */
const blockSink = (writer: SpoolWriter, result: ValidatedBlock): BlockOutcomeSink => {
  const rows = result.rows
  if (rows === undefined) return writer
  return { fail: writer.fail, acceptBytes: (_, row, productCode) => writer.acceptRow(rows, row, productCode), acceptText: (_, row, productCode) => writer.acceptRow(rows, row, productCode) }
}

/**
 * Spools a JSON products file as `spoolItems` does, with the parsing and validation of its
 * products in the JsonValidationPool's threads (or, with none, on this thread through
 * `spoolItems`). Here: the multipart stream, the scanner (structure, UTF-8, delimiting), the
 * duplicate rule in file order, the batches and the spool.
 *
 * Blocks go out to the threads through a window of BLOCKS_IN_FLIGHT_PER_THREAD per thread, and their
 * results are read back in file order, the oldest first; a buffer of the upload is split only when
 * the window has room for what it completes, so memory holds a few blocks however the upload is
 * chunked. Nothing here runs per buffer but the scanner: a stream stage per buffer cost more
 * CPU than the split itself.
 *
 * Outcomes are those of the single-threaded path: results are read in file order, and the end of
 * the input (its fault, or a failure of the upload itself) is read after every block split before
 * it, so a product that is not well-formed JSON wins over any fault further on, as when the scanner
 * stopped at it.
 */
export const spoolJsonFile = <E, R>(content: Stream.Stream<Uint8Array, E, R>, options: JsonFileOptions, blockBytes = BLOCK_BYTES) =>
  Effect.flatMap(JsonValidationPool, (pool): Effect.Effect<SpoolTotals, E | JsonSyntaxError | StorageFailed | ValidationThreadFailed, R> => {
    if (pool.threads === 0) {
      return spoolItems(Stream.map(content.pipe(scanJsonProducts(scanOptions(options))), (product) => productItem(product.index, product.value, product.json)), options)
    }
    return Effect.scoped(Effect.gen(function*() {
      const scope = yield* Effect.scope
      const codes = yield* makeSpillingCodeIndex(options.spool.folder, options.codesInMemory)
      const splitter = new JsonBlockSplitter(options.company, blockBytes, scanOptions(options))
      const writer = makeSpoolWriter(options)
      const firstOccurrence = makeFirstOccurrences(codes)
      const window: Array<Fiber.Fiber<ValidatedBlock, ValidationThreadFailed>> = []
      const encodeRows = writer.format === "columns"
      const windowSize = pool.threads * BLOCKS_IN_FLIGHT_PER_THREAD

      const spoolOldest: Effect.Effect<void, JsonSyntaxError | StorageFailed | ValidationThreadFailed> = Effect.suspend(() => {
        const oldest = window.shift()
        if (oldest === undefined) return Effect.void
        return Effect.flatMap(Fiber.join(oldest), (result): Effect.Effect<void, JsonSyntaxError | StorageFailed> => {
          if (result.fault !== undefined) return Effect.fail(new JsonSyntaxError(result.fault))
          readBlockOutcomes(result, firstOccurrence, blockSink(writer, result))
          splitter.recycle(result.block)
          return Effect.andThen(codes.check, writer.drain)
        })
      })
      const send = (blocks: ReadonlyArray<JsonBlock>) =>
        Effect.forEach(blocks, (block) =>
          Effect.andThen(
            window.length >= windowSize ? spoolOldest : Effect.void,
            Effect.flatMap(Effect.forkIn(pool.validate(block, encodeRows), scope), (fiber) => Effect.sync(() => window.push(fiber)))
          ), { discard: true })
      const spoolAll = Effect.whileLoop({ while: () => window.length > 0, body: () => spoolOldest, step: () => undefined })

      /** What was split before the input ended or broke goes through first, so that a fault in it wins over `last`. */
      const endWith = <X>(last: Effect.Effect<void, X>): Effect.Effect<void, X | JsonSyntaxError | StorageFailed | ValidationThreadFailed> =>
        send(splitter.flush()).pipe(Effect.andThen(spoolAll), Effect.andThen(last))
      /** The buffers of one chunk of the upload, split one after the other as the window takes their blocks. */
      const split = (buffers: ReadonlyArray<Uint8Array>) => {
        let next = 0
        const rest: Effect.Effect<void, JsonSyntaxError | StorageFailed | ValidationThreadFailed> = Effect.suspend(() => {
          while (next < buffers.length) {
            const blocks = splitter.push(buffers[next++]!)
            if (isFault(blocks)) return endWith(Effect.fail(blocks))
            if (blocks.length > 0) return Effect.andThen(send(blocks), rest)
          }
          return Effect.void
        })
        return rest
      }

      // Set when the failure is this side's (a fault of the file, a thread, the spool): the upload's own failure ends the file instead.
      let failedHere = false
      yield* Stream.runForEachArray(content, (chunk) => Effect.tapError(split(chunk), () => Effect.sync(() => (failedHere = true)))).pipe(
        Effect.matchEffect({
          onFailure: (error) => (failedHere ? Effect.fail(error) : endWith(Effect.fail(error))),
          onSuccess: () => {
            const last = splitter.end()
            return isFault(last) ? endWith(Effect.fail(last)) : Effect.andThen(send(last), endWith(writer.finish))
          }
        })
      )
      return writer.totals()
    }))
  })
