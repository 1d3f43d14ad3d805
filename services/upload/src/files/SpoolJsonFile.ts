import type { StorageFailed } from "@retail/api"
import { makeFirstOccurrences } from "@retail/domain"
import { JsonSyntaxError, scanJsonProducts } from "@retail/ingest"
import { Effect, Stream } from "effect"
import { FAILED, type JsonBlock, type JsonBlockResult, LAYOUT_END, LAYOUT_FIELDS, SAME_BYTES } from "./JsonBlock.ts"
import { JsonBlockSplitter } from "./JsonBlockSplitter.ts"
import { JsonValidationPool, type ValidationThreadFailed } from "./JsonValidationPool.ts"
import { productItem } from "./LoadItem.ts"
import { makeSpillingCodeIndex } from "./SpillingCodeIndex.ts"
import { type SpoolOptions, type SpoolTotals, type SpoolWriter, makeSpoolWriter, spoolItems } from "./SpoolItems.ts"

/** About 280 products of the benchmark's 1.8 KB: a task long enough (~2 ms) to dwarf the pool's overhead per task. */
const BLOCK_BYTES = 512 * 1024
/** Blocks sent to the threads and not yet read back, per thread: one running, one queued. */
const BLOCKS_IN_FLIGHT_PER_THREAD = 2

/** A block to validate, or the end of the file: `error` is why it is not a complete, well-formed file. */
type Piece<E> = { readonly _tag: "Block"; readonly block: JsonBlock } | { readonly _tag: "End"; readonly error: E | JsonSyntaxError | undefined }
type Validated<E> = { readonly _tag: "Result"; readonly result: JsonBlockResult } | Extract<Piece<E>, { _tag: "End" }>

const isFault = (value: ReadonlyArray<JsonBlock> | JsonSyntaxError): value is JsonSyntaxError => value instanceof JsonSyntaxError

/**
 * Spools a JSON products file as `spoolItems` does, with the parsing and validation of its
 * products in the JsonValidationPool's threads (or, with none, on this thread through
 * `spoolItems`). Here: the multipart stream, the scanner (structure, UTF-8, delimiting), the
 * duplicate rule in file order, the batches and the spool.
 *
 * Outcomes are those of the single-threaded path: results are read in file order, and the end of
 * the input (its fault, or a failure of the upload itself) is read after every block split before
 * it, so a product that is not well-formed JSON wins over any fault further on, as when the scanner
 * stopped at it.
 */
export const spoolJsonFile = <E, R>(content: Stream.Stream<Uint8Array, E, R>, options: SpoolOptions, blockBytes = BLOCK_BYTES) =>
  Effect.flatMap(JsonValidationPool, (pool): Effect.Effect<SpoolTotals, E | JsonSyntaxError | StorageFailed | ValidationThreadFailed, R> => {
    if (pool.threads === 0) {
      return spoolItems(Stream.map(content.pipe(scanJsonProducts()), (product) => productItem(product.index, product.value, product.json)), options)
    }
    return Effect.scoped(Effect.gen(function*() {
      const codes = yield* makeSpillingCodeIndex(options.spool.folder, options.codesInMemory)
      const splitter = new JsonBlockSplitter(options.company, blockBytes)
      const writer = makeSpoolWriter(options)
      const firstOccurrence = makeFirstOccurrences(codes)
      const blocks = (list: ReadonlyArray<JsonBlock>): Array<Piece<E>> => list.map((block) => ({ _tag: "Block", block }))
      const ending = (error: E | JsonSyntaxError | undefined): Array<Piece<E>> => [...blocks(splitter.flush()), { _tag: "End", error }]

      const pieces: Stream.Stream<Piece<E>, never, R> = content.pipe(
        // One buffer of the upload at a time, so that blocks are split only as validation takes them:
        // a chunk of many buffers would otherwise be split whole ahead of the threads.
        Stream.rechunk(1),
        Stream.mapConcat((chunk): Array<Piece<E>> => {
          const split = splitter.push(chunk)
          return isFault(split) ? ending(split) : blocks(split)
        }),
        Stream.catchAll((error) => Stream.fromIterable(ending(error))),
        Stream.concat(Stream.suspend(() => {
          const split = splitter.end()
          return Stream.fromIterable(isFault(split) ? ending(split) : [...blocks(split), ...ending(undefined)])
        })),
        Stream.takeUntil((piece) => piece._tag === "End")
      )

      const validated = Stream.mapEffect(
        pieces,
        (piece): Effect.Effect<Validated<E>, ValidationThreadFailed> =>
          piece._tag === "Block" ? Effect.map(pool.validate(piece.block), (result) => ({ _tag: "Result", result })) : Effect.succeed(piece),
        { concurrency: pool.threads * BLOCKS_IN_FLIGHT_PER_THREAD }
      )

      const consume = (item: Validated<E>): Effect.Effect<void, E | JsonSyntaxError | StorageFailed> => {
        if (item._tag === "End") return item.error === undefined ? writer.finish : Effect.fail(item.error)
        const { result } = item
        if (result.fault !== undefined) return Effect.fail(new JsonSyntaxError(result.fault))
        spoolBlock(result, writer, firstOccurrence)
        splitter.recycle(result.block)
        return Effect.zipRight(codes.check, writer.drain)
      }

      return yield* Stream.runForEach(validated, consume).pipe(Effect.map(writer.totals))
    }))
  })

/** A validated block's products into the spool, in order, with the duplicate rule applied. */
const spoolBlock = (
  result: JsonBlockResult,
  writer: SpoolWriter,
  firstOccurrence: ReturnType<typeof makeFirstOccurrences>
): void => {
  const { block, outcomes, codes, codeLengths } = result
  const bytes = new Uint8Array(block.bytes)
  const layout = new Float64Array(block.layout)
  let failure = 0
  let reEncoded = 0
  let accepted = 0
  let codeAt = 0
  let start = 0
  for (let i = 0; i < block.count; i++) {
    const end = layout[i * LAYOUT_FIELDS + LAYOUT_END]!
    const outcome = outcomes[i]
    if (outcome === FAILED) writer.fail(result.failures[failure++]!)
    else {
      const codeEnd = codeAt + codeLengths[accepted * 2]!
      const skuEnd = codeEnd + codeLengths[accepted * 2 + 1]!
      accepted++
      const duplicate = firstOccurrence(codes.slice(codeAt, codeEnd), codes.slice(codeEnd, skuEnd), block.firstIndex + i)
      codeAt = skuEnd
      const text = outcome === SAME_BYTES ? undefined : result.reEncoded[reEncoded++]!
      if (duplicate !== undefined) writer.fail(duplicate)
      else if (text === undefined) writer.acceptBytes(bytes.subarray(start, end))
      else writer.acceptText(text)
    }
    start = end
  }
}
