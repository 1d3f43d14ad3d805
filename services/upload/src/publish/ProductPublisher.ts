import type { Product, ProductBatch } from "@retail/domain"
import { StreamQueue } from "@retail/queue"
import { BinaryArrayWriter, encodeBatch, entryOfColumns } from "@retail/store"
import { Context, Effect, Layer } from "effect"
import { columnsEntry } from "../persist/BatchEntry.ts"
import { type AcceptedRow, ColumnsBatch } from "../spool/ColumnsBatch.ts"
import { encodedEntry, entryOfProducts, isColumnsBatch, type LoadRef, type SpooledBatch } from "./BatchEntries.ts"
import { BufferPool } from "./BufferPool.ts"
import { trackBatches } from "./LoadTracking.ts"
import { entryFormatOf, UploadConfig } from "../UploadConfig.ts"

export type { EncodedBatch, LoadRef, SpooledBatch } from "./BatchEntries.ts"

/** Entry buffers kept for reuse: those of a few 3000-product loads, let go after a while without loads. */
const ENTRY_BUFFERS = 48
const POOL_IDLE_MS = 30_000

/** Cuts accepted products into batches (one queue entry each) and publishes them all or none. */
export class ProductPublisher extends Context.Service<ProductPublisher>()("@retail/upload/ProductPublisher", {
  make: Effect.gen(function*() {
    const queue = yield* StreamQueue
    const { batchEntryFormat, batchSize, batchesStream } = yield* UploadConfig
    // `publish` takes /load-products' products parsed on the event loop (the general way).
    const parsedFormat = entryFormatOf(batchEntryFormat, "loadProducts")
    const columns = new BinaryArrayWriter()
    const rowsBatch = new ColumnsBatch()
    // Entries of /load-products: about 12 of ~0.5 MB a 3000-product load, reused from one load to the next.
    const entryBuffers = new BufferPool(ENTRY_BUFFERS, { idleMs: POOL_IDLE_MS })

    const payloads = (load: LoadRef, products: ReadonlyArray<Product>, firstBatchNo: number) => {
      const entries: Array<string> = []
      for (let start = 0, i = 0; start < products.length; start += batchSize, i++) {
        if (parsedFormat === "columns") {
          const header = { processCode: load.processCode, company: load.company, batchNo: firstBatchNo + i }
          entries.push(columnsEntry(encodeBatch(header, products.slice(start, start + batchSize), columns)))
          continue
        }
        // Products are already decoded and their encoded form is the same JSON, so no re-encoding.
        const batch: typeof ProductBatch.Encoded = {
          processCode: load.processCode,
          company: load.company,
          batchNo: firstBatchNo + i,
          products: products.slice(start, start + batchSize)
        }
        entries.push(JSON.stringify(batch))
      }
      return entries
    }

    return {
      batchSize,
      /** The stream batches are published on, recorded on each load (its reconcilers are that stream's). */
      stream: batchesStream,
      /** Publishes every product of the call atomically; returns the number of batches written. */
      publish: (load: LoadRef, products: ReadonlyArray<Product>, firstBatchNo = 0) =>
        Effect.suspend(() => {
          const entries = payloads(load, products, firstBatchNo)
          const track = trackBatches(batchesStream, load.processCode, entries.map((_, i) => firstBatchNo + i))
          return Effect.as(queue.publish(batchesStream, entries, { track }), entries.length)
        }),
      /**
       * Publishes products given as their JSON bytes (a product as validated, or as the client sent it
       * when validation kept all of it), atomically: the entries are built from the bytes, nothing is
       * encoded again. Returns the number of batches written.
       */
      publishJson: (load: LoadRef, products: ReadonlyArray<Uint8Array>) =>
        Effect.suspend(() => {
          const entries: Array<Uint8Array> = []
          for (let start = 0; start < products.length; start += batchSize) {
            entries.push(entryOfProducts(load, entries.length, products.slice(start, start + batchSize), entryBuffers.take))
          }
          const track = trackBatches(batchesStream, load.processCode, entries.map((_, i) => i))
          // Given back once Redis has answered, so has read them; after a failure the socket may still hold them.
          return queue.publish(batchesStream, entries, { track }).pipe(
            Effect.tap(() => Effect.sync(() => entries.forEach(entryBuffers.give))),
            Effect.as(entries.length)
          )
        }),
      /**
       * Publishes products given as the rows the validation threads encoded them in (BATCH_ENTRY_FORMAT=columns),
       * atomically, one columns entry a batch laid out from the rows. Returns the number of batches written.
       */
      publishRows: (load: LoadRef, products: ReadonlyArray<AcceptedRow>) =>
        Effect.suspend(() => {
          const entries: Array<string> = []
          for (let start = 0; start < products.length; start += batchSize) {
            const end = Math.min(start + batchSize, products.length)
            for (let i = start; i < end; i++) rowsBatch.appendRow(products[i]!.rows, products[i]!.row, products[i]!.productCode)
            const body = rowsBatch.take()
            const header = { processCode: load.processCode, company: load.company, batchNo: entries.length, products: end - start }
            entries.push(columnsEntry(entryOfColumns(header, body)))
            rowsBatch.recycle(body)
          }
          const track = trackBatches(batchesStream, load.processCode, entries.map((_, i) => i))
          return Effect.as(queue.publish(batchesStream, entries, { track }), entries.length)
        }),
      /** How many entries `count` products are published as. */
      batchesFor: (count: number) => Math.ceil(count / batchSize),
      /**
       * Publishes batches whose products are already encoded (from a file load's spool: JSON arrays, or
       * columns laid out), atomically, one entry each. The entries are built in `allocate`d memory,
       * returned for the caller to reuse once this completes (a columns entry's bytes, once it is base64).
       */
      publishEncoded: (load: LoadRef, batches: ReadonlyArray<SpooledBatch>, allocate: (length: number) => Uint8Array = Buffer.allocUnsafe) =>
        Effect.suspend(() => {
          const allocated: Array<Uint8Array> = []
          const entries = batches.map((batch) => {
            if (!isColumnsBatch(batch)) {
              const entry = encodedEntry(load, batch, allocate)
              allocated.push(entry)
              return entry
            }
            const header = { processCode: load.processCode, company: load.company, batchNo: batch.batchNo, products: batch.count }
            const bytes = entryOfColumns(header, batch.body, allocate)
            allocated.push(bytes)
            return columnsEntry(bytes)
          })
          const track = trackBatches(batchesStream, load.processCode, batches.map((batch) => batch.batchNo))
          return queue.publish(batchesStream, entries, { track }).pipe(Effect.as(allocated))
        })
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
