import { describe, expect, layer } from "@effect/vitest"
import { type Product, ProductBatch } from "@retail/domain"
import { MemoryStreamQueue, StreamQueue } from "@retail/queue"
import { BatchWorkers, COLUMNS_PREFIX, columnsEntry, loadBatchesSet, ProductPublisher, trackBatches, UploadConfig } from "@retail/service-upload"
import { Database, encodeBatch, LoadRepository, ProductRepository, StoreError, UNREADABLE_SKU } from "@retail/store"
import { sampleProducts } from "@retail/testkit"
import { Effect, Layer, Option, Schedule } from "effect"

const config = UploadConfig.test({ claimIdleMs: 200, maxDeliveries: 2, workers: 1 })

/** The real store, except that persisting a batch always fails as a broken row would. */
const BrokenPersistence = Layer.effect(
  ProductRepository,
  Effect.map(ProductRepository, (real) =>
    ProductRepository.of({
      ...real,
      persistBatch: () => Effect.fail(new StoreError({ operation: "persistBatch", message: "value too long for type" })),
      persistEncodedBatch: () => Effect.fail(new StoreError({ operation: "persistBatch", message: "value too long for type" }))
    }))
).pipe(Layer.provide(ProductRepository.layer))

const Store = Layer.mergeAll(LoadRepository.layer, BrokenPersistence).pipe(
  Layer.provideMerge(Database.layer({ url: Option.none(), dataDir: Database.IN_MEMORY, poolSize: 1 }))
)

const Workers = BatchWorkers.pipe(Layer.provideMerge(Layer.mergeAll(Store, MemoryStreamQueue.layer, config)))

const WorkingStore = Layer.mergeAll(LoadRepository.layer, ProductRepository.layer).pipe(
  Layer.provideMerge(Database.layer({ url: Option.none(), dataDir: Database.IN_MEMORY, poolSize: 1 }))
)
const WorkingWorkers = BatchWorkers.pipe(Layer.provideMerge(Layer.mergeAll(WorkingStore, MemoryStreamQueue.layer, config)))
const ColumnsPublisher = Layer.mergeAll(BatchWorkers, ProductPublisher.layer).pipe(
  Layer.provideMerge(Layer.mergeAll(WorkingStore, MemoryStreamQueue.layer, UploadConfig.test({ workers: 1, batchSize: 4, batchEntryFormat: "columns" })))
)

/**
 * The real store, misbehaving for the loads a test names: persisting a batch of a `crashing` load dies
 * (a defect, not a StoreError); persisting one of a `flaky` load fails its first attempt; dead-lettering
 * a batch of an `undeadletterable` load fails.
 */
const misbehaving = { crashing: new Set<string>(), flaky: new Set<string>(), undeadletterable: new Set<string>() }
const MisbehavingStore = Layer.mergeAll(
  Layer.effect(
    ProductRepository,
    Effect.map(ProductRepository, (real) => {
      const persist = <A>(processCode: string, persisted: Effect.Effect<A, StoreError>): Effect.Effect<A, StoreError> =>
        Effect.suspend(() => {
          if (misbehaving.crashing.has(processCode)) return Effect.die(new Error("boom in the row encoder"))
          if (misbehaving.flaky.delete(processCode)) return Effect.fail(new StoreError({ operation: "persistBatch", message: "serialization failure" }))
          return persisted
        })
      return ProductRepository.of({
        ...real,
        persistBatch: (batch) => persist(batch.processCode, real.persistBatch(batch)),
        persistEncodedBatch: (batch) => persist(batch.header.processCode, real.persistEncodedBatch(batch))
      })
    })
  ).pipe(Layer.provide(ProductRepository.layer)),
  Layer.effect(
    LoadRepository,
    Effect.map(LoadRepository, (real) =>
      LoadRepository.of({
        ...real,
        recordDeadBatch: (processCode, batchNo, skus, reason) =>
          misbehaving.undeadletterable.has(processCode)
            ? Effect.fail(new StoreError({ operation: "recordDeadBatch", message: "connection reset" }))
            : real.recordDeadBatch(processCode, batchNo, skus, reason)
      }))
  ).pipe(Layer.provide(LoadRepository.layer))
).pipe(Layer.provideMerge(Database.layer({ url: Option.none(), dataDir: Database.IN_MEMORY, poolSize: 1 })))
const MisbehavingWorkers = BatchWorkers.pipe(Layer.provideMerge(Layer.mergeAll(MisbehavingStore, MemoryStreamQueue.layer, config)))

/** A batch in each entry format: ProductBatch's JSON (every release so far) and the columns encoded at intake. */
const entryOf = (format: "json" | "columns", batch: ProductBatch): string =>
  format === "json"
    ? JSON.stringify(batch)
    : columnsEntry(encodeBatch({ processCode: batch.processCode, company: batch.company, batchNo: batch.batchNo }, batch.products))

const loadStatus = (processCode: string, awaited = "COMPLETED_WITH_ERRORS") =>
  Effect.flatMap(LoadRepository, (loads) => loads.find(processCode)).pipe(
    Effect.map(Option.map((load) => load.status)),
    Effect.filterOrFail((status) => Option.contains(status, awaited), (status) => status),
    Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo({ duration: "20 seconds" })))
  )

/** The dead letters of `entry` once there is one (the workers dead-letter it in the background). */
const deadLettersOf = (entry: string) =>
  Effect.gen(function*() {
    const queue = yield* StreamQueue
    const { batchesStream } = yield* UploadConfig
    return yield* queue.readDead(batchesStream, { count: 100 }).pipe(
      Effect.map((entries) => entries.filter((d) => d.payload === entry)),
      Effect.filterOrFail((entries) => entries.length > 0, () => "not yet"),
      Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo({ duration: "20 seconds" })))
    )
  })

describe("BatchWorkers", () => {
  layer(Workers, { timeout: 60_000, excludeTestServices: true })((it) => {
    for (const format of ["json", "columns"] as const) {
      it.effect(`[${format}] dead-letters a batch that keeps failing while the database is up, and fails its products on the load`, () =>
        Effect.gen(function*() {
          const queue = yield* StreamQueue
          const loads = yield* LoadRepository
          const { batchesStream } = yield* UploadConfig
          const processCode = crypto.randomUUID()
          const products = sampleProducts(2, { prefix: "DEAD" }) as unknown as ReadonlyArray<Product>
          yield* loads.create({ processCode, company: "ACME", source: "LOAD_PRODUCTS", received: 2, accepted: 2, failed: 0, errors: [] })
          yield* queue.publish(batchesStream, [entryOf(format, ProductBatch.make({ processCode, company: "ACME", batchNo: 0, products }))])

          expect(yield* loadStatus(processCode)).toEqual(Option.some("COMPLETED_WITH_ERRORS"))
          const view = Option.getOrThrow(yield* loads.find(processCode))
          expect(view.totals).toMatchObject({ accepted: 2, persisted: 0, failed: 2 })
          const page = yield* loads.errors(processCode, { cursor: Option.none(), limit: 10 })
          expect(page.errors.map((e) => e.sku)).toEqual(products.map((p) => p.skuCode))
          expect(page.errors[0]?.error).toBe("persisting failed 2 times: value too long for type")
          const dead = (yield* queue.readDead(batchesStream, { count: 10 })).filter((d) => d.payload === entryOf(format, ProductBatch.make({ processCode, company: "ACME", batchNo: 0, products })))
          expect(dead.map((d) => [d.deliveries, d.reason])).toEqual([[2, "persisting failed 2 times: value too long for type"]])
        }))
    }

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

    it.effect("dead-letters a columns entry whose bytes are not an encoded batch at its first delivery", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const { batchesStream } = yield* UploadConfig
        const before = (yield* queue.readDead(batchesStream, { count: 100 })).length
        const truncated = columnsEntry(encodeBatch({ processCode: crypto.randomUUID(), company: "ACME", batchNo: 0 }, [])).slice(0, -8)
        yield* queue.publish(batchesStream, [truncated])
        const dead = yield* queue.readDead(batchesStream, { count: 100 }).pipe(
          Effect.filterOrFail((entries) => entries.length > before, () => "not yet"),
          Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.upTo({ duration: "10 seconds" })))
        )
        expect(dead.at(-1)).toMatchObject({ deliveries: 1, payload: truncated })
        expect(dead.at(-1)?.reason).toContain("undecodable batch")
      }))

    /** An entry of a load that cannot be decoded (a release with another schema or column layout wrote it) still ends its load. */
    const refusedEntries = (processCode: string, products: ReadonlyArray<Product>) => ({
      json: JSON.stringify({ processCode, company: "ACME", batchNo: 0, products: products.map((p) => ({ ...p, dateUpdate: "not a date" })) }),
      // The header is whole; the column count after it is not this release's.
      columns: (() => {
        const bytes = Buffer.from(encodeBatch({ processCode, company: "ACME", batchNo: 0 }, products))
        const columnCountAt = 8 + bytes.readInt32BE(4)
        bytes.writeInt32BE(bytes.readInt32BE(columnCountAt) + 1, columnCountAt)
        return columnsEntry(bytes)
      })()
    })
    for (const format of ["json", "columns"] as const) {
      it.effect(`[${format}] an entry whose header names a load but whose products cannot be decoded fails them on the load, at its first delivery`, () =>
        Effect.gen(function*() {
          const queue = yield* StreamQueue
          const loads = yield* LoadRepository
          const { batchesStream } = yield* UploadConfig
          const processCode = crypto.randomUUID()
          const products = sampleProducts(3, { prefix: "UNDEC" }) as unknown as ReadonlyArray<Product>
          const entry = refusedEntries(processCode, products)[format]
          yield* loads.create({ processCode, company: "ACME", source: "LOAD_PRODUCTS", received: 3, accepted: 3, failed: 0, errors: [], batches: 1, queue: batchesStream })
          yield* queue.publish(batchesStream, [entry], { track: trackBatches(batchesStream, processCode, [0]) })

          expect(yield* loadStatus(processCode)).toEqual(Option.some("COMPLETED_WITH_ERRORS"))
          expect(Option.getOrThrow(yield* loads.find(processCode)).totals).toMatchObject({ accepted: 3, persisted: 0, failed: 3 })
          const page = yield* loads.errors(processCode, { cursor: Option.none(), limit: 10 })
          expect(page.errors.map((e) => e.sku)).toEqual(format === "json" ? products.map((p) => p.skuCode) : products.map(() => UNREADABLE_SKU))
          expect(page.errors.every((e) => e.error.startsWith("undecodable batch: "))).toBe(true)
          const dead = (yield* queue.readDead(batchesStream, { count: 100 })).filter((d) => d.payload === entry)
          expect(dead.map((d) => d.deliveries)).toEqual([1])
          // Off the load's tracking set, so the reconciler does not wait for it on the queue.
          expect(yield* queue.tracked(loadBatchesSet(batchesStream, processCode))).toEqual([])
        }))
    }

    it.effect("a columns entry whose header counts more products than a batch holds (corrupt) is dead-lettered alone at its first delivery", () =>
      Effect.gen(function*() {
        const loads = yield* LoadRepository
        const queue = yield* StreamQueue
        const { batchesStream } = yield* UploadConfig
        const processCode = crypto.randomUUID()
        yield* loads.create({ processCode, company: "ACME", source: "LOAD_PRODUCTS", received: 1, accepted: 1, failed: 0, errors: [] })
        const magic = Buffer.from(encodeBatch({ processCode, company: "ACME", batchNo: 0 }, [])).subarray(0, 4)
        const header = Buffer.from(JSON.stringify({ processCode, company: "ACME", batchNo: 0, products: 2 ** 40 }))
        const length = Buffer.alloc(4)
        length.writeInt32BE(header.length)
        const entry = columnsEntry(Buffer.concat([magic, length, header]))
        yield* queue.publish(batchesStream, [entry])
        expect((yield* deadLettersOf(entry)).map((d) => d.deliveries)).toEqual([1])
        expect((yield* loads.errors(processCode, { cursor: Option.none(), limit: 10 })).errors).toEqual([])
      }))

    it.effect("an entry naming a load the database cannot hold (processCode not a UUID) is dead-lettered at its first delivery, not retried for ever", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const { batchesStream } = yield* UploadConfig
        const products = sampleProducts(1, { prefix: "FORGED" }) as unknown as ReadonlyArray<Product>
        // ProductBatch's JSON schema refuses such a code already; the columns header is read by hand.
        const entry = columnsEntry(encodeBatch({ processCode: "not-a-load", company: "ACME", batchNo: 0 }, products))
        yield* queue.publish(batchesStream, [entry])
        const dead = yield* deadLettersOf(entry)
        expect(dead.map((d) => d.deliveries)).toEqual([1])
        expect(dead[0]?.reason).toBe("undecodable batch: its processCode is not a UUID or its batchNo not a batch number")
      }))
  })

  layer(BatchWorkers.pipe(Layer.provideMerge(Layer.mergeAll(Store, MemoryStreamQueue.layer, UploadConfig.test({ claimIdleMs: 200, maxDeliveries: 2, workers: 1, deadLetterMaxEntries: 2 })))), {
    timeout: 60_000,
    excludeTestServices: true
  })((it) => {
    it.effect("with DEAD_LETTER_MAX_ENTRIES=2, the dead-letter stream keeps the newest two batches; every load still lists its failed products", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const loads = yield* LoadRepository
        const { batchesStream } = yield* UploadConfig
        const processCodes = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()]
        for (const [i, processCode] of processCodes.entries()) {
          const products = sampleProducts(2, { prefix: `CAP${i}` }) as unknown as ReadonlyArray<Product>
          yield* loads.create({ processCode, company: "ACME", source: "LOAD_PRODUCTS", received: 2, accepted: 2, failed: 0, errors: [] })
          yield* queue.publish(batchesStream, [entryOf("json", ProductBatch.make({ processCode, company: "ACME", batchNo: 0, products }))])
          // One at a time, so that the dead letters' order is the loads' order.
          expect(yield* loadStatus(processCode)).toEqual(Option.some("COMPLETED_WITH_ERRORS"))
          expect((yield* loads.errors(processCode, { cursor: Option.none(), limit: 10 })).errors).toHaveLength(2)
        }
        const dead = yield* queue.readDead(batchesStream, { count: 10 })
        expect(dead.map((d) => (JSON.parse(d.payload) as { readonly processCode: string }).processCode)).toEqual(processCodes.slice(1))
      }))
  })

  layer(WorkingWorkers, { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("persists a queue holding entries of both formats (a rolling deploy): every product, with its children", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const loads = yield* LoadRepository
        const repository = yield* ProductRepository
        const { batchesStream } = yield* UploadConfig
        const processCode = crypto.randomUUID()
        const company = `MIXED-${processCode.slice(0, 8)}`
        const products = sampleProducts(6, { prefix: "MIX", company }) as unknown as ReadonlyArray<Product>
        yield* loads.create({ processCode, company, source: "LOAD_PRODUCTS", received: 6, accepted: 6, failed: 0, errors: [] })
        yield* queue.publish(batchesStream, [
          entryOf("json", ProductBatch.make({ processCode, company, batchNo: 0, products: products.slice(0, 3) })),
          entryOf("columns", ProductBatch.make({ processCode, company, batchNo: 1, products: products.slice(3) }))
        ])

        expect(yield* loadStatus(processCode, "COMPLETED")).toEqual(Option.some("COMPLETED"))
        expect(Option.getOrThrow(yield* loads.find(processCode)).totals).toMatchObject({ accepted: 6, persisted: 6, failed: 0 })
        for (const product of products) expect(yield* repository.findProduct(company, product.productCode)).toEqual(Option.some(product))
        expect(yield* queue.length(batchesStream)).toBe(0)
      }))

    it.effect("a batch of a load no longer there (forgotten after LOAD_RETENTION_DAYS) stores nothing and leaves the queue for the dead letters", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const repository = yield* ProductRepository
        const { batchesStream } = yield* UploadConfig
        const processCode = crypto.randomUUID()
        const company = `GONE-${processCode.slice(0, 8)}`
        const products = sampleProducts(2, { prefix: "GONE", company }) as unknown as ReadonlyArray<Product>
        const entry = entryOf("columns", ProductBatch.make({ processCode, company, batchNo: 0, products }))
        yield* queue.publish(batchesStream, [entry])
        const dead = yield* deadLettersOf(entry)
        expect(dead.map((d) => d.deliveries)).toEqual([2])
        expect(dead[0]?.reason).toContain("does not exist")
        expect(yield* queue.length(batchesStream)).toBe(0)
        expect((yield* repository.countRows(company)).products).toBe(0)
      }))
  })

  layer(MisbehavingWorkers, { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("a batch whose persisting dies (a defect) is dead-lettered after MAX_DELIVERIES and its load ends, not redelivered for ever", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const loads = yield* LoadRepository
        const { batchesStream } = yield* UploadConfig
        const processCode = crypto.randomUUID()
        misbehaving.crashing.add(processCode)
        const products = sampleProducts(2, { prefix: "CRASH" }) as unknown as ReadonlyArray<Product>
        const entry = entryOf("columns", ProductBatch.make({ processCode, company: "ACME", batchNo: 0, products }))
        yield* loads.create({ processCode, company: "ACME", source: "LOAD_PRODUCTS", received: 2, accepted: 2, failed: 0, errors: [] })
        yield* queue.publish(batchesStream, [entry])

        expect(yield* loadStatus(processCode)).toEqual(Option.some("COMPLETED_WITH_ERRORS"))
        const page = yield* loads.errors(processCode, { cursor: Option.none(), limit: 10 })
        expect(page.errors.map((e) => [e.sku, e.error])).toEqual(products.map((p) => [p.skuCode, "persisting failed 2 times: unexpected error: boom in the row encoder"]))
        const dead = (yield* queue.readDead(batchesStream, { count: 100 })).filter((d) => d.payload === entry)
        expect(dead.map((d) => d.deliveries)).toEqual([2])
      }))

    it.effect("an entry whose dead-lettering keeps failing stays pending without holding back the entries claimed with it", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const loads = yield* LoadRepository
        const repository = yield* ProductRepository
        const { batchesStream } = yield* UploadConfig
        // Claimed first (the older entry): its persisting fails every time, and so does recording it dead.
        const stuck = crypto.randomUUID()
        misbehaving.crashing.add(stuck)
        misbehaving.undeadletterable.add(stuck)
        // Claimed in the same set, after it: its first attempt fails, the reclaimer's succeeds.
        const retried = crypto.randomUUID()
        misbehaving.flaky.add(retried)
        const company = `RECL-${retried.slice(0, 8)}`
        const products = sampleProducts(3, { prefix: "RECL", company }) as unknown as ReadonlyArray<Product>
        for (const processCode of [stuck, retried]) {
          yield* loads.create({ processCode, company, source: "LOAD_PRODUCTS", received: 3, accepted: 3, failed: 0, errors: [] })
        }
        yield* queue.publish(batchesStream, [
          entryOf("json", ProductBatch.make({ processCode: stuck, company, batchNo: 0, products })),
          entryOf("json", ProductBatch.make({ processCode: retried, company, batchNo: 0, products }))
        ])

        expect(yield* loadStatus(retried, "COMPLETED")).toEqual(Option.some("COMPLETED"))
        expect((yield* repository.countRows(company)).products).toBe(3)
        const stuckLoad = Option.getOrThrow(yield* loads.find(stuck))
        expect(stuckLoad.status).not.toMatch(/^(COMPLETED|FAILED)/)
        expect(stuckLoad.totals).toMatchObject({ persisted: 0, failed: 0 })
        // Still on the queue, to be dead-lettered once recording it works again.
        misbehaving.undeadletterable.delete(stuck)
        expect(yield* loadStatus(stuck)).toEqual(Option.some("COMPLETED_WITH_ERRORS"))
        expect(yield* queue.length(batchesStream)).toBe(0)
      }))
  })

  layer(ColumnsPublisher, { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("with BATCH_ENTRY_FORMAT=columns, publishes columns entries; a batch sending one code twice keeps its latest dateUpdate", () =>
      Effect.gen(function*() {
        const loads = yield* LoadRepository
        const repository = yield* ProductRepository
        const publisher = yield* ProductPublisher
        const processCode = crypto.randomUUID()
        const company = `COLS-${processCode.slice(0, 8)}`
        const [first, ...rest] = sampleProducts(7, { prefix: "COL", company }) as unknown as ReadonlyArray<Product>
        const newer = { ...first!, dateUpdate: "2030-01-01 00:00:00", description: "newer" }
        const products = [first!, newer, ...rest]
        yield* loads.create({ processCode, company, source: "LOAD_PRODUCTS", received: 8, accepted: 8, failed: 0, errors: [] })
        expect(yield* publisher.publish({ processCode, company }, products)).toBe(2)

        expect(yield* loadStatus(processCode, "COMPLETED")).toEqual(Option.some("COMPLETED"))
        expect(Option.getOrThrow(yield* loads.find(processCode)).totals).toMatchObject({ accepted: 8, persisted: 8 })
        expect(yield* repository.findProduct(company, first!.productCode)).toEqual(Option.some(newer))
        for (const product of rest) expect(yield* repository.findProduct(company, product.productCode)).toEqual(Option.some(product))
        expect(yield* repository.countRows(company)).toMatchObject({ products: 7 })
      }))
  })

  // `publish` takes /load-products' products: columns only when BATCH_ENTRY_FORMAT=columns, ProductBatch's JSON under the default `auto`.
  for (const [setting, columns] of [["columns", true], ["auto", false]] as const) {
    layer(ProductPublisher.layer.pipe(Layer.provideMerge(Layer.mergeAll(MemoryStreamQueue.layer, UploadConfig.test({ batchSize: 4, batchEntryFormat: setting })))))((it) => {
      it.effect(`with BATCH_ENTRY_FORMAT=${setting}, /load-products' products are published as ${columns ? "columns entries" : "ProductBatch JSON"}`, () =>
        Effect.gen(function*() {
          const queue = yield* StreamQueue
          const publisher = yield* ProductPublisher
          const { batchesStream } = yield* UploadConfig
          const products = sampleProducts(6, { prefix: "P" }) as unknown as ReadonlyArray<Product>
          const processCode = crypto.randomUUID()
          expect(yield* publisher.publish({ processCode, company: "ACME" }, products)).toBe(2)
          const entries = yield* queue.readAfter(batchesStream, "0", { count: 10, blockMs: 0 })
          expect(entries.map((e) => e.payload.startsWith(COLUMNS_PREFIX))).toEqual([columns, columns])
          if (columns) return
          const batches = entries.map((e) => JSON.parse(e.payload) as { readonly processCode: string; readonly batchNo: number; readonly products: ReadonlyArray<unknown> })
          expect(batches.map((b) => [b.processCode, b.batchNo, b.products.length])).toEqual([[processCode, 0, 4], [processCode, 1, 2]])
        }))
    })
  }
})
