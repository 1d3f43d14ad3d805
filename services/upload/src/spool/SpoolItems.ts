import { LoadError, makeLoadValidator, type Product } from "@retail/domain"
import type { StorageFailed } from "@retail/api"
import type { EncodedRows, ErrorEntry } from "@retail/store"
import { Effect, Result, Stream } from "effect"
import { BatchBuffer } from "./BatchBuffer.ts"
import { ColumnsBatch } from "./ColumnsBatch.ts"
import { type FileProduct, validationKeptInput } from "@retail/ingest"
import type { LoadSpool } from "./LoadSpool.ts"
import { makeSpillingCodeIndex } from "./LoadCodeIndex.ts"

const ERRORS_PAGE = 1000

export interface SpoolTotals {
  readonly total: number
  readonly accepted: number
  readonly failed: number
  /** The first `responseErrorsCap` failures, for the response; all of them are in the spool. */
  readonly firstErrors: ReadonlyArray<LoadError>
}

export interface SpoolOptions {
  readonly company: string
  readonly spool: LoadSpool
  readonly batchSize: number
  readonly responseErrorsCap: number
  /** Codes the duplicate rule keeps in memory before spilling them next to the spool (SpillingCodeIndex). */
  readonly codesInMemory?: number | undefined
  /**
   * How batches are spooled (BATCH_ENTRY_FORMAT; `json` when unset): JSON arrays of products, or
   * columns (ColumnsBatch.ts), whose products come as encoded rows or as products.
   */
  readonly format?: "json" | "columns" | undefined
}

/**
 * What a file load writes to its spool, in file order: accepted products into batches of
 * `batchSize` (as bytes), failures into pages, and the totals. Appending is synchronous; `drain`
 * writes what filled up since the last drain (call it after each chunk of products, so that the
 * disk back-pressures the upload), `finish` the rest.
 */
export const makeSpoolWriter = (options: SpoolOptions) => {
  const { batchSize, responseErrorsCap, spool } = options
  const firstErrors: Array<LoadError> = []
  const batch = new BatchBuffer()
  const columns = new ColumnsBatch()
  const format = options.format ?? "json"
  let errors: Array<ErrorEntry> = []
  let writes: Array<Effect.Effect<void, StorageFailed>> = []
  let total = 0
  let accepted = 0
  let failed = 0

  // A caller gives products in one format; were it to mix them, each would still be written (as two records).
  const writeBatch = () => {
    const written: Array<Effect.Effect<void, StorageFailed>> = []
    if (columns.count > 0) {
      const count = columns.count
      const body = columns.take()
      written.push(spool.writeColumns(count, body).pipe(Effect.ensuring(Effect.sync(() => columns.recycle(body)))))
    }
    if (batch.count > 0) {
      const count = batch.count
      const products = batch.take()
      written.push(spool.writeBatch(count, products).pipe(Effect.ensuring(Effect.sync(() => batch.recycle(products)))))
    }
    return Effect.all(written, { discard: true })
  }
  const batchCount = () => columns.count + batch.count
  const afterProduct = () => {
    if (batchCount() >= batchSize) writes.push(writeBatch())
    if (errors.length >= ERRORS_PAGE) {
      writes.push(spool.writeErrors(JSON.stringify(errors)))
      errors = []
    }
  }
  const takeWrites = () => {
    const pending = writes
    writes = []
    return Effect.all(pending, { discard: true })
  }

  return {
    format,
    fail: (entry: ErrorEntry): void => {
      total++
      failed++
      errors.push(entry)
      if (firstErrors.length < responseErrorsCap) firstErrors.push(new LoadError(entry, { disableChecks: true }))
      afterProduct()
    },
    /** An accepted product, as the rows a validation thread encoded it in (columns format). */
    acceptRow: (rows: EncodedRows, row: number, productCode: string): void => {
      total++
      accepted++
      columns.appendRow(rows, row, productCode)
      afterProduct()
    },
    /** An accepted product validated on this thread (columns format: it is encoded with its batch). */
    acceptProduct: (product: Product): void => {
      total++
      accepted++
      columns.appendProduct(product)
      afterProduct()
    },
    /** An accepted product, as the bytes of its JSON (json format). */
    acceptBytes: (json: Uint8Array): void => {
      total++
      accepted++
      batch.appendBytes(json)
      afterProduct()
    },
    /** An accepted product, as JSON text (json format). */
    acceptText: (json: string): void => {
      total++
      accepted++
      batch.appendText(json)
      afterProduct()
    },
    /** Whether a batch or an error page filled up since the last drain. */
    due: (): boolean => writes.length > 0,
    drain: Effect.suspend(takeWrites),
    finish: Effect.suspend(() => {
      if (batchCount() > 0) writes.push(writeBatch())
      if (errors.length > 0) writes.push(spool.writeErrors(JSON.stringify(errors)))
      errors = []
      return takeWrites()
    }),
    totals: (): SpoolTotals => ({ total, accepted, failed, firstErrors })
  }
}

export type SpoolWriter = ReturnType<typeof makeSpoolWriter>

/**
 * Validates every item of a file as load-products does and writes accepted products (in
 * batches) and failures (in pages) to the spool. An accepted product is spooled as the bytes it
 * came as when the item carries them and validation kept all of it (`validationKeptInput`), else re-encoded.
 * Memory: the batches of one chunk of items, one page, the response's errors, the productCodes'
 * index (bounded: it spills to the spool's folder, and its files go when spooling ends).
 */
export const spoolItems = <E, R>(items: Stream.Stream<FileProduct, E, R>, options: SpoolOptions) =>
  Effect.scoped(Effect.gen(function*() {
    const codes = yield* makeSpillingCodeIndex(options.spool.folder, options.codesInMemory)
    const validator = makeLoadValidator(options.company, codes)
    const writer = makeSpoolWriter(options)

    const consume = (chunk: ReadonlyArray<FileProduct>) =>
      Effect.suspend(() => {
        for (const item of chunk) {
          if (item._tag === "Failed") {
            writer.fail({ sku: item.sku, error: item.error })
          } else {
            Result.match(validator.validate(item.value, item.index), {
              onFailure: (failure) => writer.fail(item.locate === undefined ? failure : { sku: failure.sku, error: item.locate(failure.error) }),
              onSuccess: (product) => {
                if (writer.format === "columns") writer.acceptProduct(product)
                else if (item.json !== undefined && validationKeptInput(item.value, product)) writer.acceptBytes(item.json)
                else writer.acceptText(JSON.stringify(product))
              }
            })
          }
        }
        return Effect.andThen(codes.check, writer.drain)
      })

    return yield* Stream.runForEachArray(items, consume).pipe(
      Effect.andThen(writer.finish),
      Effect.map(writer.totals)
    )
  }))
