import { LoadError, makeLoadValidator } from "@retail/domain"
import type { StorageFailed } from "@retail/api"
import type { ErrorEntry } from "@retail/store"
import { type Chunk, Effect, Either, Stream } from "effect"
import type { LoadItem } from "./LoadItem.ts"
import type { LoadSpool } from "./LoadSpool.ts"

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
 * batches) and failures (in pages) to the spool. Memory: one batch, one page, the response's errors.
 */
export const spoolItems = <E, R>(
  items: Stream.Stream<LoadItem, E, R>,
  options: { readonly company: string; readonly spool: LoadSpool; readonly batchSize: number; readonly responseErrorsCap: number }
) =>
  Effect.suspend(() => {
    const { batchSize, responseErrorsCap, spool } = options
    const validator = makeLoadValidator(options.company)
    const firstErrors: Array<LoadError> = []
    let pending: Array<string> = []
    let errors: Array<ErrorEntry> = []
    let total = 0
    let accepted = 0
    let failed = 0

    const fail = (entry: ErrorEntry) => {
      failed++
      errors.push(entry)
      if (firstErrors.length < responseErrorsCap) firstErrors.push(new LoadError(entry, { disableValidation: true }))
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
                pending.push(JSON.stringify(product))
              }
            })
          }
          if (pending.length >= batchSize) {
            writes.push(spool.writeBatch(pending))
            pending = []
          }
          if (errors.length >= ERRORS_PAGE) {
            writes.push(spool.writeErrors(JSON.stringify(errors)))
            errors = []
          }
        }
        return Effect.all(writes, { discard: true })
      })

    const flush = Effect.suspend(() =>
      Effect.all([
        pending.length > 0 ? spool.writeBatch(pending) : Effect.void,
        errors.length > 0 ? spool.writeErrors(JSON.stringify(errors)) : Effect.void
      ], { discard: true })
    )

    return Stream.runForEachChunk(items, consume).pipe(
      Effect.zipRight(flush),
      Effect.map((): SpoolTotals => ({ total, accepted, failed, firstErrors }))
    )
  })
