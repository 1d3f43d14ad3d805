import type { Product, ProductBatch } from "@retail/domain"
import { StreamQueue } from "@retail/queue"
import { Context, Effect, Layer } from "effect"
import { BufferPool } from "./BufferPool.ts"
import { trackBatches } from "./LoadTracking.ts"
import { UploadConfig } from "../UploadConfig.ts"

export interface LoadRef {
  readonly processCode: string
  readonly company: string
}

/** One batch whose products are already the bytes of a JSON array (from a file load's spool). */
export interface EncodedBatch {
  readonly batchNo: number
  readonly productsJson: Uint8Array
}

const entryHead = (load: LoadRef, batchNo: number): Buffer =>
  Buffer.from(
    `{"processCode":${JSON.stringify(load.processCode)},"company":${JSON.stringify(load.company)},"batchNo":${batchNo},"products":`,
    "utf8"
  )

/** A ProductBatch entry around products already encoded, built as bytes in `allocate`d memory: `{"processCode":..,"batchNo":N,"products":` + products + `}`. */
const encodedEntry = (load: LoadRef, batch: EncodedBatch, allocate: (length: number) => Uint8Array): Uint8Array => {
  const head = entryHead(load, batch.batchNo)
  const entry = allocate(head.length + batch.productsJson.length + 1)
  entry.set(head, 0)
  entry.set(batch.productsJson, head.length)
  entry[entry.length - 1] = 0x7d
  return entry
}

const COMMA = 0x2c
/** Entry buffers kept for reuse: those of a few 3000-product loads, let go after a while without loads. */
const ENTRY_BUFFERS = 48
const POOL_IDLE_MS = 30_000

/** A ProductBatch entry whose products are each the JSON bytes of one product, copied once into `allocate`d memory. */
const entryOfProducts = (load: LoadRef, batchNo: number, products: ReadonlyArray<Uint8Array>, allocate: (length: number) => Uint8Array): Uint8Array => {
  const head = entryHead(load, batchNo)
  let length = head.length + 2 + Math.max(products.length - 1, 0) + 1
  for (const product of products) length += product.length
  const entry = allocate(length)
  entry.set(head, 0)
  let at = head.length
  entry[at++] = 0x5b
  products.forEach((product, i) => {
    if (i > 0) entry[at++] = COMMA
    entry.set(product, at)
    at += product.length
  })
  entry[at++] = 0x5d
  entry[at] = 0x7d
  return entry
}

/** Cuts accepted products into batches (one queue entry each) and publishes them all or none. */
export class ProductPublisher extends Context.Service<ProductPublisher>()("@retail/upload/ProductPublisher", {
  make: Effect.gen(function*() {
    const queue = yield* StreamQueue
    const { batchSize, batchesStream } = yield* UploadConfig
    // Entries of /load-products: about 12 of ~0.5 MB a 3000-product load, reused from one load to the next.
    const entryBuffers = new BufferPool(ENTRY_BUFFERS, { idleMs: POOL_IDLE_MS })

    const payloads = (load: LoadRef, products: ReadonlyArray<Product>, firstBatchNo: number) => {
      const entries: Array<string> = []
      for (let start = 0, i = 0; start < products.length; start += batchSize, i++) {
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
      /** How many entries `count` products are published as. */
      batchesFor: (count: number) => Math.ceil(count / batchSize),
      /**
       * Publishes batches whose products are already encoded (from a file load's spool), atomically, one
       * entry each; the entries are built in `allocate`d memory, which the caller may reuse once this completes.
       */
      publishEncoded: (load: LoadRef, batches: ReadonlyArray<EncodedBatch>, allocate: (length: number) => Uint8Array = Buffer.allocUnsafe) =>
        Effect.suspend(() => {
          const entries = batches.map((batch) => encodedEntry(load, batch, allocate))
          const track = trackBatches(batchesStream, load.processCode, batches.map((batch) => batch.batchNo))
          return queue.publish(batchesStream, entries, { track }).pipe(Effect.as(entries))
        })
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
