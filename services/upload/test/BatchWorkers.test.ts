import { describe, expect, layer } from "@effect/vitest"
import { type Product, ProductBatch } from "@retail/domain"
import { MemoryStreamQueue, StreamQueue } from "@retail/queue"
import { BatchWorkers, UploadConfig } from "@retail/service-upload"
import { Database, LoadRepository, ProductRepository, StoreError } from "@retail/store"
import { sampleProducts } from "@retail/testkit"
import { Effect, Layer, Option, Schedule } from "effect"

const config = UploadConfig.test({ claimIdleMs: 200, maxDeliveries: 2, workers: 1 })

/** The real store, except that persisting a batch always fails as a broken row would. */
const BrokenPersistence = Layer.effect(
  ProductRepository,
  Effect.map(ProductRepository, (real) =>
    ProductRepository.of({
      ...real,
      persistBatch: () => Effect.fail(new StoreError({ operation: "persistBatch", message: "value too long for type" }))
    }))
).pipe(Layer.provide(ProductRepository.layer))

const Store = Layer.mergeAll(LoadRepository.layer, BrokenPersistence).pipe(
  Layer.provideMerge(Database.layer({ url: Option.none(), dataDir: Database.IN_MEMORY, poolSize: 1 }))
)

const Workers = BatchWorkers.pipe(Layer.provideMerge(Layer.mergeAll(Store, MemoryStreamQueue.layer, config)))

const loadStatus = (processCode: string) =>
  Effect.flatMap(LoadRepository, (loads) => loads.find(processCode)).pipe(
    Effect.map(Option.map((load) => load.status)),
    Effect.filterOrFail((status) => Option.contains(status, "COMPLETED_WITH_ERRORS"), (status) => status),
    Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo({ duration: "20 seconds" })))
  )

describe("BatchWorkers", () => {
  layer(Workers, { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("dead-letters a batch that keeps failing while the database is up, and fails its products on the load", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const loads = yield* LoadRepository
        const { batchesStream } = yield* UploadConfig
        const processCode = crypto.randomUUID()
        const products = sampleProducts(2, { prefix: "DEAD" }) as unknown as ReadonlyArray<Product>
        yield* loads.create({ processCode, company: "ACME", source: "LOAD_PRODUCTS", received: 2, accepted: 2, failed: 0, errors: [] })
        yield* queue.publish(batchesStream, [JSON.stringify(ProductBatch.make({ processCode, company: "ACME", batchNo: 0, products }))])

        expect(yield* loadStatus(processCode)).toEqual(Option.some("COMPLETED_WITH_ERRORS"))
        const view = Option.getOrThrow(yield* loads.find(processCode))
        expect(view.totals).toMatchObject({ accepted: 2, persisted: 0, failed: 2 })
        const page = yield* loads.errors(processCode, { cursor: Option.none(), limit: 10 })
        expect(page.errors.map((e) => e.sku)).toEqual(products.map((p) => p.skuCode))
        expect(page.errors[0]?.error).toBe("persisting failed 2 times: value too long for type")
        const dead = yield* queue.readDead(batchesStream, { count: 10 })
        expect(dead.map((d) => [d.deliveries, d.reason])).toEqual([[2, "persisting failed 2 times: value too long for type"]])
      }))

    it.effect("dead-letters an entry that is not a product batch at its first delivery", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const { batchesStream } = yield* UploadConfig
        const before = (yield* queue.readDead(batchesStream, { count: 100 })).length
        yield* queue.publish(batchesStream, ["{\"not\":\"a batch\"}"])
        const dead = yield* queue.readDead(batchesStream, { count: 100 }).pipe(
          Effect.filterOrFail((entries) => entries.length > before, () => "not yet"),
          Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.upTo({ duration: "10 seconds" })))
        )
        expect(dead.at(-1)).toMatchObject({ deliveries: 1, payload: "{\"not\":\"a batch\"}" })
        expect(dead.at(-1)?.reason).toContain("undecodable batch")
      }))
  })
})
