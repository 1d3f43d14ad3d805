import { LoadError, makeLoadValidator } from "@retail/domain"
import type { StorageFailed } from "@retail/api"
import type { ErrorEntry } from "@retail/store"
import { type Chunk, Effect, Either, Stream } from "effect"
import { BatchBuffer } from "./BatchBuffer.ts"
import type { LoadItem } from "./LoadItem.ts"
import type { LoadSpool } from "./LoadSpool.ts"
import { sameJson } from "./SameJson.ts"

const ERRORS_PAGE = 1000

export interface SpoolTotals {
  readonly total: number
  readonly accepted: number
  readonly failed: number
  /** The first `responseErrorsCap` failures, for the response; all of them are in the spool. */
  readonly firstErrors: ReadonlyArray<LoadError>
}

/**
 * Validates every item of a file as load-products does and writes accepted products (in
 * batches) and failures (in pages) to the spool. An accepted product is spooled as the bytes it
 * came as when the item carries them and validation kept all of it (`sameJson`), else re-encoded.
 * Memory: the batches of one chunk of items, one page, the response's errors.
 */
export const spoolItems = <E, R>(
  items: Stream.Stream<LoadItem, E, R>,
  options: { readonly company: string; readonly spool: LoadSpool; readonly batchSize: number; readonly responseErrorsCap: number }
) =>
  Effect.suspend(() => {
    const { batchSize, responseErrorsCap, spool } = options
    const validator = makeLoadValidator(options.company)
    const firstErrors: Array<LoadError> = []
    const batch = new BatchBuffer()
    let errors: Array<ErrorEntry> = []
    let total = 0
    let accepted = 0
    let failed = 0

    const fail = (entry: ErrorEntry) => {
      failed++
      errors.push(entry)
      if (firstErrors.length < responseErrorsCap) firstErrors.push(new LoadError(entry, { disableValidation: true }))
    }

    const writeBatch = () => {
      const count = batch.count
      const products = batch.take()
      return spool.writeBatch(count, products).pipe(Effect.ensuring(Effect.sync(() => batch.recycle(products))))
    }

    const consume = (chunk: Chunk.Chunk<LoadItem>) =>
      Effect.suspend(() => {
        const writes: Array<Effect.Effect<void, StorageFailed>> = []
        for (const item of chunk) {
          total++
          if (item._tag === "Failed") {
            fail({ sku: item.sku, error: item.error })
          } else {
            Either.match(validator.validate(item.value, item.index), {
              onLeft: (failure) => fail(item.locate === undefined ? failure : { sku: failure.sku, error: item.locate(failure.error) }),
              onRight: (product) => {
                accepted++
                if (item.json !== undefined && sameJson(item.value, product)) batch.appendBytes(item.json)
                else batch.appendText(JSON.stringify(product))
              }
            })
          }
          if (batch.count >= batchSize) writes.push(writeBatch())
          if (errors.length >= ERRORS_PAGE) {
            writes.push(spool.writeErrors(JSON.stringify(errors)))
            errors = []
          }
        }
        return Effect.all(writes, { discard: true })
      })

    const flush = Effect.suspend(() =>
      Effect.all([
        batch.count > 0 ? writeBatch() : Effect.void,
        errors.length > 0 ? spool.writeErrors(JSON.stringify(errors)) : Effect.void
      ], { discard: true })
    )

    return Stream.runForEachChunk(items, consume).pipe(
      Effect.zipRight(flush),
      Effect.map((): SpoolTotals => ({ total, accepted, failed, firstErrors }))
    )
  })
