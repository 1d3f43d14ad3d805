import type { Product, ProductBatch } from "@retail/domain"
import { StreamQueue } from "@retail/queue"
import { Chunk, Effect } from "effect"
import { UploadConfig } from "./UploadConfig.ts"

export interface LoadRef {
  readonly processCode: string
  readonly company: string
}

/** Cuts accepted products into batches (one queue entry each) and publishes them all or none. */
export class ProductPublisher extends Effect.Service<ProductPublisher>()("@retail/upload/ProductPublisher", {
  effect: Effect.gen(function*() {
    const queue = yield* StreamQueue
    const { batchSize, batchesStream } = yield* UploadConfig

    const payloads = (load: LoadRef, products: ReadonlyArray<Product>, firstBatchNo: number) =>
      Chunk.toReadonlyArray(Chunk.chunksOf(Chunk.unsafeFromArray(products), batchSize)).map((chunk, i) => {
        // Products are already decoded and their encoded form is the same JSON, so no re-encoding.
        const batch: typeof ProductBatch.Encoded = {
          processCode: load.processCode,
          company: load.company,
          batchNo: firstBatchNo + i,
          products: Chunk.toReadonlyArray(chunk)
        }
        return JSON.stringify(batch)
      })

    return {
      batchSize,
      /** Publishes every product of the call atomically; returns the number of batches written. */
      publish: (load: LoadRef, products: ReadonlyArray<Product>, firstBatchNo = 0) =>
        Effect.suspend(() => {
          const entries = payloads(load, products, firstBatchNo)
          return Effect.as(queue.publish(batchesStream, entries), entries.length)
        }),
      /** Publishes one batch whose products are already a JSON array text (from a file load's spool). */
      publishEncoded: (load: LoadRef, batchNo: number, productsJson: string) =>
        queue.publish(batchesStream, [
          `{"processCode":${JSON.stringify(load.processCode)},"company":${JSON.stringify(load.company)},"batchNo":${batchNo},"products":${productsJson}}`
        ]).pipe(Effect.asVoid)
    } as const
  })
}) {}
