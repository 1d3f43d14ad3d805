/**
 * The behaviour the store owes its callers, run against every database it supports. The
 * PostgreSQL database is shared with other test files, so every test uses its own company and
 * process codes and never drops anything.
 */
import { expect, layer } from "@effect/vitest"
import { type LoadStatus, LoadStatusChanged, Product, ProductBatch } from "@retail/domain"
import { sampleProduct, type SampleProductOptions } from "@retail/testkit"
import { Deferred, Effect, Fiber, Layer, Option, Result, Schedule, Schema } from "effect"
import { SqlClient } from "effect/sql"
import {
  CapacityRepository,
  Database,
  type GroupedOutcome,
  type DatabaseOptions,
  decodeEncodedBatch,
  encodeBatch,
  LoadOwnership,
  LoadRepository,
  LoadRetention,
  migrate,
  MIGRATIONS_TABLE,
  type NewLoad,
  type UnfinishedLoad,
  Outbox,
  ProductRepository
} from "../src/index.ts"

const decodeProduct = Schema.decodeUnknownSync(Product)
const parseEvent = Schema.decodeUnknownSync(Schema.fromJsonString(LoadStatusChanged))

const fresh = () => {
  const tag = crypto.randomUUID().slice(0, 8)
  return { company: `CO-${tag}`, prefix: `T${tag}-` }
}

const product = (index: number, options: SampleProductOptions, overrides: Partial<Record<string, unknown>> = {}): Product =>
  decodeProduct({ ...sampleProduct(index, options), ...overrides })

const products = (count: number, options: SampleProductOptions) =>
  Array.from({ length: count }, (_, i) => product(i, options))

const batch = (processCode: string, company: string, batchNo: number, items: ReadonlyArray<Product>) =>
  ProductBatch.make({ processCode, company, batchNo, products: items })

/**
 * The two ways a batch reaches the store: ProductBatch (a JSON queue entry, decoded) and the binary
 * columns encoded at intake. The write path's tests run for both.
 */
const FORMATS = ["json", "columns"] as const
type Format = (typeof FORMATS)[number]

const persistAs = (format: Format) => (b: ProductBatch) =>
  Effect.flatMap(ProductRepository, (repo) =>
    format === "json"
      ? repo.persistBatch(b)
      : repo.persistEncodedBatch(Result.getOrThrow(decodeEncodedBatch(encodeBatch({ processCode: b.processCode, company: b.company, batchNo: b.batchNo }, b.products)))))

const newLoad = (company: string, overrides: Partial<NewLoad> = {}): NewLoad => ({
  processCode: crypto.randomUUID(),
  company,
  source: "LOAD_PRODUCTS",
  received: 0,
  accepted: 0,
  failed: 0,
  errors: [],
  ...overrides
})

const EventRow = Schema.Struct({
  payload: Schema.Struct({ status: Schema.String, previousStatus: Schema.NullOr(Schema.String), processCode: Schema.String })
})

/** The outbox events of one load, in the order they were written. */
const eventsOf = (processCode: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`SELECT payload FROM load_events WHERE process_code = ${processCode} ORDER BY id`.pipe(
      Effect.flatMap(Schema.decodeUnknownEffect(Schema.Array(EventRow))),
      Effect.map((rows) => rows.map(({ payload }) => [payload.previousStatus, payload.status] as const))
    )
  )

const loadOf = (processCode: string) =>
  Effect.flatMap(LoadRepository, (loads) => loads.find(processCode)).pipe(Effect.map(Option.getOrThrow))

const statusOf = (processCode: string): Effect.Effect<LoadStatus, unknown, LoadRepository> =>
  Effect.map(loadOf(processCode), (load) => load.status)

export const storeContract = (name: string, options: DatabaseOptions): void => {
  const TestLayer = Layer.mergeAll(ProductRepository.layer, LoadRepository.layer, Outbox.layer, LoadOwnership.layer, LoadRetention.layer, CapacityRepository.layer).pipe(
    Layer.provideMerge(Database.layer(options))
  )

  layer(TestLayer, { excludeTestServices: true, timeout: "60 seconds" })(name, (it) => {
    it.effect("answers the readiness check", () => Database.ready)

    it.effect("migrations are idempotent, even run concurrently", () =>
      Effect.gen(function* () {
        const runs = yield* Effect.all([migrate, migrate], { concurrency: 2 })
        expect(runs).toEqual([[], []])
        expect(yield* migrate).toEqual([])
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql`SELECT migration_id FROM ${sql(MIGRATIONS_TABLE)} ORDER BY migration_id`
        expect(rows.map((row) => row["migration_id"])).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14])
      }))

    for (const format of FORMATS) {
      const persist = persistAs(format)

      it.effect(`[${format}] persists a batch's products and every child row; a product round-trips exactly`, () =>
        Effect.gen(function* () {
          const { company, prefix } = fresh()
          const repo = yield* ProductRepository
          const load = yield* (yield* LoadRepository).create(newLoad(company, { received: 3, accepted: 3 }))
          const items = products(3, { company, prefix })
          const outcome = yield* persist(batch(load.processCode, company, 0, items))
          expect(outcome).toEqual({ _tag: "Persisted", written: 3, skippedAsOlder: 0 })
          expect(yield* repo.countRows(company)).toEqual({ products: 3, barcodes: 6, hierarchies: 6, attributes: 9 })
          for (const item of items) {
            expect(yield* repo.findProduct(company, item.productCode)).toEqual(Option.some(item))
            expect(yield* repo.findChildren(company, item.productCode)).toEqual({
              barcodes: item.barcodes,
              hierarchies: item.hierarchies,
              attributes: item.lstAttributes
            })
          }
          expect(yield* repo.findProduct(company, "missing")).toEqual(Option.none())
          expect(yield* repo.findProduct(`${company}-other`, items[0]!.productCode)).toEqual(Option.none())
        }))

      it.effect(`[${format}] keeps values exactly: awkward numbers, text, every nullable field; absent reads back as null`, () =>
        Effect.gen(function* () {
          const { company, prefix } = fresh()
          const repo = yield* ProductRepository
          const load = yield* (yield* LoadRepository).create(newLoad(company, { received: 2, accepted: 2 }))
          const { dispatchType: _d, companyCode: _c, skuCodePlatform: _s, taxSelective: _t, ...bare } = sampleProduct(0, { prefix })
          const sparse = decodeProduct({
            ...bare,
            price: 0.1 + 0.2,
            weight: 1e-7,
            salesTax: null,
            description: "Ünïcode \"quoted\" \\ tab\there\nnew line {\"json\": [1]} taladro 🔧",
            dateUpdate: "0001-01-01 00:00:00"
          })
          const full = product(1, { company, prefix }, {
            taxSelective: 12.345678901234567,
            conversionFactor: Number.MAX_SAFE_INTEGER,
            dateUpdate: "9999-12-31 23:59:59",
            hierarchies: [{ hierarchyCode: "H1", hierarchyLevel: -2147483648, hierarchyParent: "", hierarchyName: "\\N", hierarchyBreadcrumb: "a > b" }]
          })
          yield* persist(batch(load.processCode, company, 0, [sparse, full]))
          expect(yield* repo.findProduct(company, sparse.productCode)).toStrictEqual(Option.some({
            ...sparse,
            dispatchType: null,
            companyCode: null,
            skuCodePlatform: null,
            taxSelective: null
          }))
          expect(yield* repo.findProduct(company, full.productCode)).toStrictEqual(Option.some(full))
        }))

      it.effect(`[${format}] a replayed batch changes nothing and is not counted twice`, () =>
        Effect.gen(function* () {
          const { company, prefix } = fresh()
          const repo = yield* ProductRepository
          const load = yield* (yield* LoadRepository).create(newLoad(company, { received: 4, accepted: 4 }))
          const first = batch(load.processCode, company, 0, products(2, { company, prefix }))
          yield* persist(first)
          const before = yield* repo.countRows(company)
          expect(yield* persist(first)).toEqual({ _tag: "Skipped", reason: "AlreadyRecorded" })
          expect(yield* repo.countRows(company)).toEqual(before)
          const view = yield* loadOf(load.processCode)
          expect(view.totals.persisted).toBe(2)
          expect(view.status).toBe("RECEIVED")
          expect(yield* eventsOf(load.processCode)).toEqual([[null, "RECEIVED"]])
        }))

      it.effect(`[${format}] equal dateUpdate rewrites; an older one never overwrites; a newer one replaces product and children`, () =>
        Effect.gen(function* () {
          const { company, prefix } = fresh()
          const repo = yield* ProductRepository
          const load = yield* (yield* LoadRepository).create(newLoad(company, { received: 4, accepted: 4 }))
          const original = product(7, { company, prefix })
          const code = original.productCode
          yield* persist(batch(load.processCode, company, 0, [original]))

          const same = yield* persist(batch(load.processCode, company, 1, [original]))
          expect(same).toEqual({ _tag: "Persisted", written: 1, skippedAsOlder: 0 })
          expect(yield* repo.countRows(company)).toEqual({ products: 1, barcodes: 2, hierarchies: 2, attributes: 3 })

          const older = product(7, { company, prefix }, { dateUpdate: "2026-11-19 23:59:59", description: "older", barcodes: [] })
          const skipped = yield* persist(batch(load.processCode, company, 2, [older]))
          expect(skipped).toEqual({ _tag: "Persisted", written: 0, skippedAsOlder: 1 })
          expect(yield* repo.findProduct(company, code)).toEqual(Option.some(original))
          expect(yield* repo.countRows(company)).toEqual({ products: 1, barcodes: 2, hierarchies: 2, attributes: 3 })

          const newer = product(7, { company, prefix }, {
            dateUpdate: "2026-11-21 08:00:00",
            description: "newer",
            barcodes: [{ productCode: code, eanCode: "7750000000999", indicator: "ONLY" }],
            hierarchies: [{ hierarchyCode: "H-NEW", hierarchyLevel: 1 }],
            lstAttributes: [
              ...original.lstAttributes,
              { attributeType: "SPEC", parentAttributeCode: "COLOR", attributeCode: "RED", attributeDescription: "Colour", productCode: code }
            ]
          })
          const replaced = yield* persist(batch(load.processCode, company, 3, [newer]))
          expect(replaced).toEqual({ _tag: "Persisted", written: 1, skippedAsOlder: 0 })
          // hierarchyBreadcrumb is nullable: sent absent, it is kept (and read back) as null.
          expect(yield* repo.findProduct(company, code)).toEqual(Option.some({
            ...newer,
            hierarchies: [{ hierarchyCode: "H-NEW", hierarchyLevel: 1, hierarchyBreadcrumb: null }]
          }))
          expect(yield* repo.findChildren(company, code)).toEqual({
            barcodes: newer.barcodes,
            hierarchies: [{ hierarchyCode: "H-NEW", hierarchyLevel: 1, hierarchyBreadcrumb: null }],
            attributes: newer.lstAttributes
          })
          expect(yield* repo.countRows(company)).toEqual({ products: 1, barcodes: 1, hierarchies: 1, attributes: 4 })
          expect((yield* loadOf(load.processCode)).status).toBe("COMPLETED")
        }))

      it.effect(`[${format}] deduplicates product codes within a batch, the latest dateUpdate winning`, () =>
        Effect.gen(function* () {
          const { company, prefix } = fresh()
          const repo = yield* ProductRepository
          const load = yield* (yield* LoadRepository).create(newLoad(company, { received: 3, accepted: 3 }))
          const newest = product(1, { company, prefix }, { dateUpdate: "2026-12-01 00:00:00", description: "newest" })
          const items = [product(1, { company, prefix }), newest, product(1, { company, prefix }, { dateUpdate: "2026-01-01 00:00:00" })]
          const outcome = yield* persist(batch(load.processCode, company, 0, items))
          expect(outcome).toEqual({ _tag: "Persisted", written: 1, skippedAsOlder: 0 })
          expect(yield* repo.findProduct(company, newest.productCode)).toEqual(Option.some(newest))
          const view = yield* loadOf(load.processCode)
          expect(view.totals.persisted).toBe(3)
          expect(view.status).toBe("COMPLETED")
        }))
    }

    for (const format of FORMATS) {
      it.effect(`[${format}] a batch mixing stale and new products writes the children of the products written only`, () =>
        Effect.gen(function* () {
          const { company, prefix } = fresh()
          const repo = yield* ProductRepository
          const load = yield* (yield* LoadRepository).create(newLoad(company, { received: 4, accepted: 4 }))
          const stored = product(0, { company, prefix }, { dateUpdate: "2026-06-01 00:00:00" })
          yield* persistAs(format)(batch(load.processCode, company, 0, [stored]))
          const stale = product(0, { company, prefix }, { dateUpdate: "2026-05-01 00:00:00", description: "stale", barcodes: [] })
          const added = [product(1, { company, prefix }), product(2, { company, prefix })]
          const outcome = yield* persistAs(format)(batch(load.processCode, company, 1, [added[0]!, stale, added[1]!]))
          expect(outcome).toEqual({ _tag: "Persisted", written: 2, skippedAsOlder: 1 })
          for (const item of [stored, ...added]) {
            expect(yield* repo.findProduct(company, item.productCode)).toEqual(Option.some(item))
          }
          expect(yield* repo.countRows(company)).toEqual({ products: 3, barcodes: 6, hierarchies: 6, attributes: 9 })
          expect((yield* loadOf(load.processCode)).status).toBe("COMPLETED")
        }))
    }

    it.effect("completes a load as COMPLETED with its outbox events in order", () =>
      Effect.gen(function* () {
        const { company, prefix } = fresh()
        const repo = yield* ProductRepository
        const loads = yield* LoadRepository
        const load = yield* loads.create(newLoad(company, { received: 4, accepted: 4 }))
        expect(load.status).toBe("RECEIVED")
        expect(yield* loads.markProcessing(load.processCode)).toBe(true)
        expect(yield* loads.markProcessing(load.processCode)).toBe(false)
        const items = products(4, { company, prefix })
        yield* repo.persistBatch(batch(load.processCode, company, 0, items.slice(0, 2)))
        expect(yield* statusOf(load.processCode)).toBe("PROCESSING")
        yield* repo.persistBatch(batch(load.processCode, company, 1, items.slice(2)))
        const done = yield* loadOf(load.processCode)
        expect(done.status).toBe("COMPLETED")
        expect(done.totals).toEqual({ received: 4, accepted: 4, persisted: 4, failed: 0 })
        expect(done.completedAt).not.toBeNull()
        expect(new Date(done.completedAt!).toISOString()).toBe(done.completedAt)
        expect(yield* eventsOf(load.processCode)).toEqual([
          [null, "RECEIVED"],
          ["RECEIVED", "PROCESSING"],
          ["PROCESSING", "COMPLETED"]
        ])
        expect(yield* loads.markProcessing(load.processCode)).toBe(false)
        expect(yield* loads.markFailed(load.processCode, "too late")).toBe(false)
        expect(yield* statusOf(load.processCode)).toBe("COMPLETED")
        expect((yield* eventsOf(load.processCode)).length).toBe(3)
      }))

    it.effect("concurrent batches of one load are each counted once and complete it once", () =>
      Effect.gen(function* () {
        const { company, prefix } = fresh()
        const repo = yield* ProductRepository
        const loads = yield* LoadRepository
        const items = products(40, { company, prefix })
        const load = yield* loads.create(newLoad(company, { received: 40, accepted: 40 }))
        const batches = Array.from({ length: 8 }, (_, b) => batch(load.processCode, company, b, items.slice(b * 5, b * 5 + 5)))
        const outcomes = yield* Effect.all([...batches, ...batches].map((b) => repo.persistBatch(b)), { concurrency: 6 })
        expect(outcomes.filter((o) => o._tag === "Persisted").length).toBe(8)
        const done = yield* loadOf(load.processCode)
        expect(done.totals.persisted).toBe(40)
        expect(done.status).toBe("COMPLETED")
        expect(yield* eventsOf(load.processCode)).toEqual([[null, "RECEIVED"], ["RECEIVED", "COMPLETED"]])
        expect(yield* repo.countRows(company)).toEqual({ products: 40, barcodes: 80, hierarchies: 80, attributes: 120 })
      }))

    for (const format of FORMATS) {
      const persist = persistAs(format)

      it.effect(`[${format}] loads racing on the same products: the newest dateUpdate wins each product, with exactly its children`, () =>
        Effect.gen(function* () {
          const { company, prefix } = fresh()
          const repo = yield* ProductRepository
          const loads = yield* LoadRepository
          const codes = 12
          const version = (day: number) =>
            Array.from({ length: codes }, (_, i) => {
              const base = product(i, { company, prefix })
              return product(i, { company, prefix }, {
                dateUpdate: `2026-03-${String(day).padStart(2, "0")} 10:00:00`,
                description: `day ${day}`,
                barcodes: base.barcodes.slice(0, 1 + (day % 2)),
                lstAttributes: base.lstAttributes.slice(0, 1 + (day % 3))
              })
            })
          const days = [3, 9, 1, 7, 5, 8, 2, 6]
          const batches = yield* Effect.forEach(days, (day) =>
            Effect.map(loads.create(newLoad(company, { received: codes, accepted: codes })), (load) =>
              batch(load.processCode, company, 0, version(day))))
          yield* Effect.all(batches.map((b) => persist(b)), { concurrency: "unbounded", discard: true })
          const newest = version(Math.max(...days))
          for (const expected of newest) {
            expect(yield* repo.findProduct(company, expected.productCode)).toEqual(Option.some(expected))
          }
          expect(yield* repo.countRows(company)).toEqual({
            products: codes,
            barcodes: newest.reduce((n, p) => n + p.barcodes.length, 0),
            hierarchies: newest.reduce((n, p) => n + p.hierarchies.length, 0),
            attributes: newest.reduce((n, p) => n + p.lstAttributes.length, 0)
          })
        }))
    }

    it.effect("completes a load with validation failures as COMPLETED_WITH_ERRORS", () =>
      Effect.gen(function* () {
        const { company, prefix } = fresh()
        const loads = yield* LoadRepository
        const load = yield* loads.create(
          newLoad(company, { received: 3, accepted: 2, failed: 1, errors: [{ sku: "BAD-1", error: "hierarchies: must contain at least one item" }] })
        )
        yield* (yield* ProductRepository).persistBatch(batch(load.processCode, company, 0, products(2, { company, prefix })))
        const done = yield* loadOf(load.processCode)
        expect(done.status).toBe("COMPLETED_WITH_ERRORS")
        expect(done.totals).toEqual({ received: 3, accepted: 2, persisted: 2, failed: 1 })
        expect(yield* eventsOf(load.processCode)).toEqual([[null, "RECEIVED"], ["RECEIVED", "COMPLETED_WITH_ERRORS"]])
      }))

    it.effect("a load with nothing accepted is created final; markProcessing does not regress it", () =>
      Effect.gen(function* () {
        const { company } = fresh()
        const loads = yield* LoadRepository
        const clean = yield* loads.create(newLoad(company))
        expect(clean.status).toBe("COMPLETED")
        expect(clean.completedAt).not.toBeNull()
        const failed = yield* loads.create(newLoad(company, { received: 1, failed: 1, errors: [{ sku: "S", error: "bad" }] }))
        expect(failed.status).toBe("COMPLETED_WITH_ERRORS")
        expect(yield* loads.markProcessing(failed.processCode)).toBe(false)
        expect(yield* statusOf(failed.processCode)).toBe("COMPLETED_WITH_ERRORS")
        expect(yield* eventsOf(failed.processCode)).toEqual([[null, "COMPLETED_WITH_ERRORS"]])
      }))

    it.effect("a FAILED load's batches are skipped", () =>
      Effect.gen(function* () {
        const { company, prefix } = fresh()
        const loads = yield* LoadRepository
        const repo = yield* ProductRepository
        const load = yield* loads.create(newLoad(company, { received: 2, accepted: 2 }))
        expect(yield* loads.markFailed(load.processCode, "queue unavailable")).toBe(true)
        expect(yield* loads.markFailed(load.processCode, "again")).toBe(false)
        const outcome = yield* repo.persistBatch(batch(load.processCode, company, 0, products(2, { company, prefix })))
        expect(outcome).toEqual({ _tag: "Skipped", reason: "LoadFailed" })
        expect(yield* repo.countRows(company)).toEqual({ products: 0, barcodes: 0, hierarchies: 0, attributes: 0 })
        const view = yield* loadOf(load.processCode)
        expect(view.status).toBe("FAILED")
        expect(view.failureReason).toBe("queue unavailable")
        expect(view.totals.persisted).toBe(0)
        expect(yield* eventsOf(load.processCode)).toEqual([[null, "RECEIVED"], ["RECEIVED", "FAILED"]])
      }))

    for (const format of FORMATS) {
      const persist = persistAs(format)

      it.effect(`[${format}] a batch for an unknown load fails with StoreError and writes nothing`, () =>
        Effect.gen(function* () {
          const { company, prefix } = fresh()
          const repo = yield* ProductRepository
          const error = yield* Effect.flip(persist(batch(crypto.randomUUID(), company, 0, products(1, { company, prefix }))))
          expect(error._tag).toBe("StoreError")
          expect(error.operation).toBe("persistBatch")
          expect(yield* repo.countRows(company)).toEqual({ products: 0, barcodes: 0, hierarchies: 0, attributes: 0 })
        }))

      it.effect(`[${format}] a batch failing half-way (its last statement refused) leaves nothing, and the same batch number persists later`, () =>
        Effect.gen(function* () {
          const { company, prefix } = fresh()
          const repo = yield* ProductRepository
          const load = yield* (yield* LoadRepository).create(newLoad(company, { received: 3, accepted: 3 }))
          const existing = product(0, { company, prefix })
          yield* persist(batch(load.processCode, company, 0, [existing]))
          const before = yield* repo.countRows(company)
          const newer = product(0, { company, prefix }, { dateUpdate: "2027-01-01 00:00:00", description: "newer" })
          const fresh2 = product(1, { company, prefix })
          // PostgreSQL refuses U+0000 in text (validation refuses it too, hence the checks skipped): the
          // children, written last, fail after the products were upserted and the old children deleted.
          const poisoned = ProductBatch.make({
            processCode: load.processCode,
            company,
            batchNo: 1,
            products: [newer, { ...fresh2, lstAttributes: [{ ...fresh2.lstAttributes[0]!, attributeDescription: "bad\u0000" }] }]
          }, { disableChecks: true })
          const error = yield* Effect.flip(persist(poisoned))
          expect(error._tag).toBe("StoreError")
          expect(yield* repo.countRows(company)).toEqual(before)
          expect(yield* repo.findProduct(company, existing.productCode)).toEqual(Option.some(existing))
          expect((yield* loadOf(load.processCode)).totals.persisted).toBe(1)

          const retried = yield* persist(batch(load.processCode, company, 1, [newer, fresh2]))
          expect(retried).toEqual({ _tag: "Persisted", written: 2, skippedAsOlder: 0 })
          expect(yield* repo.findProduct(company, existing.productCode)).toEqual(Option.some(newer))
          expect(yield* repo.findProduct(company, fresh2.productCode)).toEqual(Option.some(fresh2))
          const done = yield* loadOf(load.processCode)
          expect(done.totals.persisted).toBe(3)
          expect(done.status).toBe("COMPLETED")
        }))
    }

    // Two transactions at once need two connections: PostgreSQL's pool (PGlite has one connection).
    if (Option.isSome(options.url)) {
      it.effect("a loss is counted under the load's lock: a batch counted before is persisted, one counted after is undone", () =>
        Effect.gen(function* () {
          const { company, prefix } = fresh()
          const sql = yield* SqlClient.SqlClient
          const loads = yield* LoadRepository
          const repo = yield* ProductRepository
          const load = yield* loads.create(newLoad(company, { received: 10, accepted: 10, batches: 2 }))
          const waitersOnLoads = sql<{ n: string }>`
            SELECT count(*)::text AS n FROM pg_locks l JOIN pg_stat_activity a USING (pid)
            WHERE NOT l.granted AND a.datname = current_database() AND a.query LIKE '%FROM loads WHERE process_code%'`.pipe(
            Effect.map((rows) => Number(rows[0]?.n ?? 0))
          )
          const waitFor = (n: number) =>
            Effect.repeat(waitersOnLoads, { until: (waiting) => waiting >= n, schedule: Schedule.spaced("20 millis") }).pipe(Effect.timeout("10 seconds"))
          /** The load's row locked, as a worker's count or another reconciler holds it, until `release` is called. */
          const holdRow = (processCode: string) =>
            Effect.gen(function* () {
              const locked = yield* Deferred.make<void>()
              const released = yield* Deferred.make<void>()
              const holder = yield* Effect.forkChild(sql.withTransaction(Effect.gen(function* () {
                yield* sql`SELECT 1 FROM loads WHERE process_code = ${processCode} FOR UPDATE`
                yield* Deferred.succeed(locked, undefined)
                yield* Deferred.await(released)
              })))
              yield* Deferred.await(locked)
              return { release: Effect.andThen(Deferred.succeed(released, undefined), Fiber.join(holder)) }
            })
          const held = yield* holdRow(load.processCode)
          // Batch 0 waits inside its transaction to count itself; then the reconciler judges batches 0 and 1 lost.
          const persisting = yield* Effect.forkChild(repo.persistBatch(batch(load.processCode, company, 0, products(5, { company, prefix }))))
          yield* waitFor(1)
          const missingOf = (recorded: ReadonlySet<number>) => [0, 1].filter((batchNo) => !recorded.has(batchNo)).length
          const failing = yield* Effect.forkChild(loads.markFailedLost(load.processCode, missingOf, (missing) => `${missing} of 2 batches were lost`))
          yield* waitFor(2)
          yield* held.release
          expect(yield* Fiber.join(persisting)).toMatchObject({ _tag: "Persisted" })
          expect(yield* Fiber.join(failing)).toEqual(Option.some(1))
          const view = yield* loadOf(load.processCode)
          expect(view).toMatchObject({ status: "FAILED", failureReason: "1 of 2 batches were lost" })
          expect(view.totals.persisted).toBe(5)

          // The other order: the reconciler has the lock first, while batch 0 is inside its transaction
          // (claimed, not yet counted). It is judged lost, so it is undone when it reaches the count.
          const second = yield* loads.create(newLoad(company, { received: 10, accepted: 10, batches: 2 }))
          const secondProducts = products(5, { company, prefix: `${prefix}B` })
          const held2 = yield* holdRow(second.processCode)
          const failing2 = yield* Effect.forkChild(loads.markFailedLost(second.processCode, missingOf, (missing) => `${missing} of 2 batches were lost`))
          yield* waitFor(1)
          const persisting2 = yield* Effect.forkChild(repo.persistBatch(batch(second.processCode, company, 0, secondProducts)))
          yield* waitFor(2)
          yield* held2.release
          expect(yield* Fiber.join(failing2)).toEqual(Option.some(2))
          expect(yield* Fiber.join(persisting2)).toEqual({ _tag: "Skipped", reason: "LoadFailed" })
          expect((yield* loadOf(second.processCode)).totals.persisted).toBe(0)
          for (const product of secondProducts) expect(yield* repo.findProduct(company, product.productCode)).toEqual(Option.none())

          // Nothing missing: nothing changes.
          const whole = yield* loads.create(newLoad(company, { received: 10, accepted: 10, batches: 2 }))
          expect(yield* loads.markFailedLost(whole.processCode, () => 0, () => "unused")).toEqual(Option.none())
          expect(yield* statusOf(whole.processCode)).toBe("RECEIVED")
        }))
    }

    it.effect("dead batches are counted once as failed and dead-lettered", () =>
      Effect.gen(function* () {
        const { company, prefix } = fresh()
        const loads = yield* LoadRepository
        const load = yield* loads.create(newLoad(company, { received: 4, accepted: 4 }))
        yield* loads.markProcessing(load.processCode)
        const items = products(4, { company, prefix })
        yield* (yield* ProductRepository).persistBatch(batch(load.processCode, company, 0, items.slice(0, 2)))
        const dead = items.slice(2).map((item) => ({ sku: item.skuCode }))
        expect(yield* loads.recordDeadBatch(load.processCode, 1, dead, "kept failing")).toBe(true)
        expect(yield* loads.recordDeadBatch(load.processCode, 1, dead, "kept failing")).toBe(false)
        const done = yield* loadOf(load.processCode)
        expect(done.status).toBe("COMPLETED_WITH_ERRORS")
        expect(done.totals).toEqual({ received: 4, accepted: 4, persisted: 2, failed: 2 })
        const page = yield* loads.errors(load.processCode, { cursor: Option.none(), limit: 10 })
        expect(page.errors.map((e) => ({ ...e }))).toEqual(dead.map(({ sku }) => ({ sku, error: "kept failing" })))
        expect(page.nextCursor).toBeNull()
        expect(yield* eventsOf(load.processCode)).toEqual([
          [null, "RECEIVED"],
          ["RECEIVED", "PROCESSING"],
          ["PROCESSING", "COMPLETED_WITH_ERRORS"]
        ])
        const replay = yield* (yield* ProductRepository).persistBatch(batch(load.processCode, company, 1, items.slice(2)))
        expect(replay).toEqual({ _tag: "Skipped", reason: "AlreadyRecorded" })
      }))

    it.effect("a batch of a load no longer there (forgotten) writes nothing, and its dead letter records nothing, so its entry can leave the queue", () =>
      Effect.gen(function* () {
        const { company, prefix } = fresh()
        const sql = yield* SqlClient.SqlClient
        const loads = yield* LoadRepository
        const gone = crypto.randomUUID()
        const failure = yield* Effect.flip((yield* ProductRepository).persistBatch(batch(gone, company, 0, products(2, { company, prefix }))))
        expect(failure.message).toContain("does not exist")
        expect(yield* loads.recordDeadBatch(gone, 0, [{ sku: "A" }], "kept failing")).toBe(false)
        const left = yield* sql<{ readonly n: number }>`
          SELECT (SELECT count(*)::int FROM load_batches WHERE process_code = ${gone})
            + (SELECT count(*)::int FROM load_errors WHERE process_code = ${gone}) AS n`
        expect(left[0]?.n).toBe(0)
        expect((yield* (yield* ProductRepository).countRows(company)).products).toBe(0)
      }))

    it.effect("pages errors by id across pages, thousands inserted at once", () =>
      Effect.gen(function* () {
        const { company } = fresh()
        const loads = yield* LoadRepository
        const errors = Array.from({ length: 2500 }, (_, i) => ({ sku: `SKU-${i}`, error: `reason ${i}` }))
        const load = yield* loads.create(newLoad(company, { received: 2500, failed: 2500, errors }))
        const seen: Array<{ sku: string; error: string }> = []
        let cursor = Option.none<string>()
        let pages = 0
        for (;;) {
          const page = yield* loads.errors(load.processCode, { cursor, limit: 1000 })
          pages++
          seen.push(...page.errors.map(({ sku, error }) => ({ sku, error })))
          if (page.nextCursor === null) break
          cursor = Option.some(page.nextCursor)
        }
        expect(pages).toBe(3)
        expect(seen).toEqual(errors)
        const exact = yield* loads.errors(load.processCode, { cursor: Option.none(), limit: 2500 })
        expect(exact.errors.length).toBe(2500)
        expect(exact.nextCursor).toBeNull()
        const invalid = yield* Effect.flip(loads.errors(load.processCode, { cursor: Option.some("abc"), limit: 10 }))
        expect(invalid._tag).toBe("InvalidCursor")
      }))

    it.effect("a streamed load completes only once receiving has finished", () =>
      Effect.gen(function* () {
        const { company, prefix } = fresh()
        const loads = yield* LoadRepository
        const load = yield* loads.create(newLoad(company, { source: "HANDLE_JSON", receiving: true }))
        expect(load.status).toBe("RECEIVED")
        yield* loads.addCounts(load.processCode, { received: 3, accepted: 2, failed: 1 })
        yield* loads.addErrors(load.processCode, [{ sku: "X", error: "bad" }])
        yield* (yield* ProductRepository).persistBatch(batch(load.processCode, company, 0, products(2, { company, prefix })))
        expect(yield* statusOf(load.processCode)).toBe("RECEIVED")
        expect(yield* loads.finishReceiving(load.processCode, 1)).toBe("COMPLETED_WITH_ERRORS")
        const done = yield* loadOf(load.processCode)
        expect(done.status).toBe("COMPLETED_WITH_ERRORS")
        expect(done.totals).toEqual({ received: 3, accepted: 2, persisted: 2, failed: 1 })
        expect((yield* loads.errors(load.processCode, { cursor: Option.none(), limit: 5 })).errors.length).toBe(1)
        const missing = yield* Effect.flip(loads.finishReceiving(crypto.randomUUID(), 0))
        expect(missing._tag).toBe("StoreError")
      }))

    it.effect("an unfinished load names its owner, whether the owner's lease is alive, and its batches", () =>
      Effect.gen(function* () {
        const { company, prefix } = fresh()
        const loads = yield* LoadRepository
        const ownership = yield* LoadOwnership
        const owner = `instance-${crypto.randomUUID()}`
        yield* ownership.register(owner, "test")
        const queue = `stream-${crypto.randomUUID()}`
        const body = yield* loads.create(newLoad(company, { received: 500, accepted: 500, owner, batches: 2, queue }))
        const file = yield* loads.create(newLoad(company, { source: "HANDLE_JSON", receiving: true, owner, queue }))
        const orphan = yield* loads.create(newLoad(company, { received: 1, accepted: 1 }))
        yield* (yield* ProductRepository).persistBatch(batch(body.processCode, company, 1, products(2, { company, prefix })))
        const mine = (all: ReadonlyArray<UnfinishedLoad>) =>
          new Map(all.filter((load) => [body, file, orphan].some((l) => l.processCode === load.processCode)).map((load) => [load.processCode, load]))

        // Another stream's reconciler sees only the loads that recorded no stream.
        expect([...mine(yield* ownership.unfinished(60_000, "another-stream")).keys()]).toEqual([orphan.processCode])
        const alive = mine(yield* ownership.unfinished(60_000, queue))
        expect(alive.get(body.processCode)).toMatchObject({ status: "RECEIVED", receiving: false, owner, ownerAlive: true, batches: 2, accepted: 500, persisted: 2 })
        expect(alive.get(file.processCode)).toMatchObject({ receiving: true, owner, ownerAlive: true, batches: null })
        expect(alive.get(orphan.processCode)).toMatchObject({ owner: null, ownerAlive: false })
        expect(yield* ownership.recordedBatches(body.processCode)).toEqual([1])
        expect(yield* ownership.recordedBatches(file.processCode)).toEqual([])

        // A lease shorter than the time since the heartbeat: the owner counts as gone.
        yield* Effect.sleep("20 millis")
        expect(mine(yield* ownership.unfinished(1, queue)).get(body.processCode)?.ownerAlive).toBe(false)
        yield* ownership.heartbeat(owner, "test")
        expect(mine(yield* ownership.unfinished(60_000, queue)).get(body.processCode)?.ownerAlive).toBe(true)
        yield* ownership.deregister(owner)
        expect(mine(yield* ownership.unfinished(60_000, queue)).get(file.processCode)?.ownerAlive).toBe(false)

        // Failed while it was still received: finishing tells the publisher so.
        yield* loads.markFailed(file.processCode, "owner gone")
        expect(yield* loads.finishReceiving(file.processCode, 3)).toBe("FAILED")
        expect(mine(yield* ownership.unfinished(60_000, queue)).has(file.processCode)).toBe(false)
      }))

    it.effect("an order whose units and the units used add up past 2,147,483,647 is EXHAUSTED, not an integer overflow (both capacity_consume functions)", () =>
      Effect.gen(function* () {
        const capacity = yield* CapacityRepository
        const sql = yield* SqlClient.SqlClient
        const MAX = 2_147_483_647
        const node = `OVERFLOW-${crypto.randomUUID().slice(0, 8)}`
        const limited = (amount: number) => ({ use: { resource: { _tag: "Picking" as const, node, pool: "ALL" as const }, date: "2031-01-06", amount }, total: MAX })
        expect(yield* capacity.consume(`${node}-big`, [limited(MAX - 10)])).toMatchObject({ _tag: "Applied", usage: [{ used: MAX - 10 }] })
        // Within the total, so the repository sends it; used + amount is past the integer maximum.
        expect(yield* Effect.flip(capacity.consume(`${node}-more`, [limited(1000)])))
          .toMatchObject({ _tag: "CapacityExhausted", requested: 1000, total: MAX })
        const wanted = JSON.stringify([{ kind: "PICKING", code: node, slot: "ALL", day: "2031-01-06", amount: 1000, total: MAX }])
        // The two-argument function, kept for processes of an earlier release.
        expect(yield* sql`SELECT outcome, amount, total FROM capacity_consume(${`${node}-old`}, ${wanted}::jsonb)`)
          .toEqual([{ outcome: "EXHAUSTED", amount: 1000, total: MAX }])
        // Up to the maximum exactly still fits.
        expect(yield* capacity.consume(`${node}-fits`, [limited(10)])).toMatchObject({ _tag: "Applied", usage: [{ used: MAX }] })
        // Replaced, both functions still look each usage row up by its key (migration 0010's setting).
        expect(yield* sql`SELECT array_to_string(proconfig, ',') AS settings FROM pg_proc WHERE proname = 'capacity_consume'`)
          .toEqual([{ settings: "enable_seqscan=off" }, { settings: "enable_seqscan=off" }])
      }))

    it.effect("orders in one group are taken in turn: each sees what the ones before it took, and each is answered as alone", () =>
      Effect.gen(function* () {
        const capacity = yield* CapacityRepository
        const node = `GROUP-${crypto.randomUUID().slice(0, 8)}`
        const picking = (amount: number, total = 10) => ({ use: { resource: { _tag: "Picking" as const, node, pool: "ALL" as const }, date: "2031-02-03", amount }, total })
        const dispatch = (amount: number) => ({ use: { resource: { _tag: "NodeDispatch" as const, node, pool: "ALL" as const }, date: "2031-02-03", amount }, total: 100 })
        const request = (units: number) => ({ units })
        expect(yield* capacity.consume(`${node}-before`, [picking(2)], request(2))).toMatchObject({ _tag: "Applied" })

        const outcomes = yield* capacity.consumeMany([
          { orderId: `${node}-a`, uses: [picking(3), dispatch(3)], request: request(3) },
          { orderId: `${node}-before`, uses: [picking(2)], request: request(2) },
          { orderId: `${node}-b`, uses: [picking(4), dispatch(4)], request: request(4) },
          { orderId: `${node}-c`, uses: [picking(2), dispatch(2)], request: request(2) },
          { orderId: `${node}-too-big`, uses: [picking(11)], request: request(11) },
          { orderId: `${node}-d`, uses: [picking(1), dispatch(1)], request: request(1) },
          { orderId: `${node}-nothing`, uses: [], request: request(0) }
        ])
        const done = outcomes.map((outcome) => (outcome._tag === "Done" ? outcome.result : outcome))
        // The usage an applied order answers, by resource (the statement's rows come in no set order).
        const usedBy = (outcome: (typeof done)[number] | undefined) =>
          outcome?._tag === "Success" && outcome.success._tag === "Applied"
            ? Object.fromEntries(outcome.success.usage.map((state) => [state.resource._tag, state.used]))
            : outcome
        // 2 taken before; a takes 3 (5), b 4 (9); c's 2 would make 11 of 10; d's 1 makes 10.
        expect(usedBy(done[0])).toEqual({ Picking: 5, NodeDispatch: 3 })
        expect(done[1]).toMatchObject({ _tag: "Success", success: { _tag: "AlreadyApplied" } })
        expect(usedBy(done[2])).toEqual({ Picking: 9, NodeDispatch: 7 })
        expect(done[3]).toMatchObject({ _tag: "Failure", failure: { _tag: "CapacityExhausted", kind: "PICKING", code: node, requested: 2, total: 10 } })
        // Past its total on its own: refused before the statement, as `consume` refuses it.
        expect(done[4]).toMatchObject({ _tag: "Failure", failure: { _tag: "CapacityExhausted", requested: 11, total: 10 } })
        expect(usedBy(done[5])).toEqual({ Picking: 10, NodeDispatch: 8 })
        // An order with no uses is applied with nothing to show, as alone.
        expect(usedBy(done[6])).toEqual({})

        // The usage revisions follow the orders: each order's rows are the absolute values after it.
        const sql = yield* SqlClient.SqlClient
        expect(yield* sql`SELECT kind, used, revision FROM capacity_usage WHERE code = ${node} ORDER BY kind`).toEqual([
          { kind: "NODE_DISPATCH", used: 8, revision: 3 },
          { kind: "PICKING", used: 10, revision: 4 }
        ])
        expect(yield* sql`SELECT order_id AS "orderId", kind, units FROM capacity_ledger WHERE code = ${node} ORDER BY order_id, kind`).toEqual([
          { orderId: `${node}-a`, kind: "NODE_DISPATCH", units: 3 },
          { orderId: `${node}-a`, kind: "PICKING", units: 3 },
          { orderId: `${node}-b`, kind: "NODE_DISPATCH", units: 4 },
          { orderId: `${node}-b`, kind: "PICKING", units: 4 },
          { orderId: `${node}-before`, kind: "PICKING", units: 2 },
          { orderId: `${node}-d`, kind: "NODE_DISPATCH", units: 1 },
          { orderId: `${node}-d`, kind: "PICKING", units: 1 }
        ])
        // The exhausted orders hold no order row: they can be sent again later.
        expect(yield* sql`SELECT order_id AS "orderId" FROM capacity_orders WHERE order_id IN (${`${node}-c`}, ${`${node}-too-big`})`).toEqual([])
        // Replaying the group changes nothing: every order it applied is ALREADY_APPLIED.
        const replay = yield* capacity.consumeMany([
          { orderId: `${node}-a`, uses: [picking(3), dispatch(3)], request: request(3) },
          { orderId: `${node}-b`, uses: [picking(4), dispatch(4)], request: { units: 5 } }
        ])
        expect(replay[0]).toMatchObject({ _tag: "Done", result: { _tag: "Success", success: { _tag: "AlreadyApplied" } } })
        // The same id with other content: OrderIdTaken with what is stored, as alone.
        expect(replay[1]).toMatchObject({ _tag: "Done", result: { _tag: "Failure", failure: { _tag: "OrderIdTaken", orderId: `${node}-b`, applied: { units: 4 } } } })
        expect(yield* sql`SELECT sum(used)::integer AS used FROM capacity_usage WHERE code = ${node}`).toEqual([{ used: 18 }])
        // An id twice in one group: the second copy is sent back (Retry), not taken as another order.
        const twice = yield* capacity.consumeMany([
          { orderId: `${node}-e`, uses: [dispatch(1)], request: request(1) },
          { orderId: `${node}-e`, uses: [dispatch(2)], request: request(2) }
        ])
        expect(twice).toMatchObject([{ _tag: "Done", result: { _tag: "Success", success: { _tag: "Applied" } } }, { _tag: "Retry" }])
        expect(yield* sql`SELECT units FROM capacity_ledger WHERE order_id = ${`${node}-e`}`).toEqual([{ units: 1 }])
        expect(yield* sql`SELECT array_to_string(proconfig, ',') AS settings FROM pg_proc WHERE proname = 'capacity_consume_many'`)
          .toEqual([{ settings: "enable_seqscan=off" }])
      }))

    it.effect("a group where every order fits (taken in one pass) answers exactly as the same orders taken in turn", () =>
      Effect.gen(function* () {
        const capacity = yield* CapacityRepository
        const sql = yield* SqlClient.SqlClient
        // The same orders on two fresh nodes, over two pools and two days of each; on the second node a
        // last order that cannot fit sends the group down the turn-by-turn path.
        const groupOn = (node: string, withRefused: boolean) => {
          const use = (_tag: "Picking" | "NodeDispatch", pool: "NORMAL" | "EXPRESS", date: string, amount: number, total = 20) => ({
            use: { resource: { _tag, node, pool }, date, amount },
            total
          })
          const [monday, tuesday] = ["2031-04-07", "2031-04-08"] as const
          const orders = [
            { orderId: `${node}-1`, uses: [use("Picking", "NORMAL", monday, 2), use("NodeDispatch", "NORMAL", monday, 2), use("Picking", "EXPRESS", monday, 4)] },
            { orderId: `${node}-0`, uses: [use("Picking", "NORMAL", monday, 9)] },
            { orderId: `${node}-2`, uses: [use("Picking", "NORMAL", tuesday, 3), use("Picking", "EXPRESS", monday, 1)] },
            // Another total for the same rows (the network changed between two orders): each order is held to its own.
            { orderId: `${node}-3`, uses: [use("NodeDispatch", "NORMAL", monday, 5, 7), use("Picking", "NORMAL", monday, 1, 4)] },
            { orderId: `${node}-4`, uses: [] },
            { orderId: `${node}-5`, uses: [use("Picking", "NORMAL", monday, 4), use("Picking", "NORMAL", tuesday, 1), use("NodeDispatch", "EXPRESS", tuesday, 1)] },
            ...(withRefused ? [{ orderId: `${node}-6`, uses: [use("Picking", "NORMAL", tuesday, 17)] }] : [])
          ]
          // The usage rows the statement updated, from this backend's statistics: read before and after
          // it in one transaction (they also hold earlier transactions' counts not yet flushed, and are flushed only between transactions).
          const updated = Effect.map(
            sql<{ updated: number }>`SELECT coalesce(sum(n_tup_upd), 0)::integer AS updated FROM pg_stat_xact_user_tables WHERE relname = 'capacity_usage'`,
            (rows) => rows[0]?.updated ?? 0
          )
          return sql.withTransaction(Effect.gen(function* () {
            const before = yield* updated
            const outcomes = yield* capacity.consumeMany(orders)
            return { outcomes, usageUpdates: (yield* updated) - before }
          }))
        }
        const answered = (outcomes: ReadonlyArray<GroupedOutcome>) =>
          outcomes.slice(0, 6).map((outcome) =>
            outcome._tag === "Done" && Result.isSuccess(outcome.result) && outcome.result.success._tag === "Applied"
              ? outcome.result.success.usage.map((state) => `${JSON.stringify(state.resource).replace(/-[0-9a-f]{8}/, "")} ${state.date} ${state.used} r${state.revision}`).sort()
              : outcome)
        const run = crypto.randomUUID().slice(0, 8)
        const [pass, turns] = [`PASS-${run}`, `TURNS-${run}`]
        // Order 0 is applied before the group on each node: in the group it is ALREADY_APPLIED and takes nothing.
        for (const node of [pass, turns]) {
          yield* capacity.consume(`${node}-0`, [{ use: { resource: { _tag: "Picking", node, pool: "NORMAL" }, date: "2031-04-07", amount: 1 }, total: 20 }])
        }
        const inOnePass = yield* groupOn(pass, false)
        const inTurns = yield* groupOn(turns, true)
        const picking = (pool: string, date: string, used: number, revision: number) => `{"_tag":"Picking","node":"PASS","pool":"${pool}"} ${date} ${used} r${revision}`
        const dispatch = (pool: string, date: string, used: number, revision: number) => `{"_tag":"NodeDispatch","node":"PASS","pool":"${pool}"} ${date} ${used} r${revision}`
        expect(answered(inOnePass.outcomes)).toEqual([
          [dispatch("NORMAL", "2031-04-07", 2, 1), picking("EXPRESS", "2031-04-07", 4, 1), picking("NORMAL", "2031-04-07", 3, 2)],
          { _tag: "Done", result: Result.succeed({ _tag: "AlreadyApplied" }) },
          [picking("EXPRESS", "2031-04-07", 5, 2), picking("NORMAL", "2031-04-08", 3, 1)],
          [dispatch("NORMAL", "2031-04-07", 7, 2), picking("NORMAL", "2031-04-07", 4, 3)],
          [],
          [dispatch("EXPRESS", "2031-04-08", 1, 1), picking("NORMAL", "2031-04-07", 8, 4), picking("NORMAL", "2031-04-08", 4, 2)]
        ].map((answer) => (Array.isArray(answer) ? [...answer].sort() : answer)))
        expect(answered(inTurns.outcomes).map((answer) => (Array.isArray(answer) ? answer.map((text) => text.replace(`"node":"TURNS"`, `"node":"PASS"`)).sort() : answer)))
          .toEqual(answered(inOnePass.outcomes))
        expect(inTurns.outcomes[6]).toMatchObject({ _tag: "Done", result: { _tag: "Failure", failure: { _tag: "CapacityExhausted", requested: 17 } } })
        // The one pass updates each of the group's 5 usage rows once; turn by turn, each of the 10 uses of the applied orders is an update.
        expect([inOnePass.usageUpdates, inTurns.usageUpdates]).toEqual([5, 10])
        const rows = (node: string) => sql`SELECT kind, slot, to_char(day, 'YYYY-MM-DD') AS day, used, revision FROM capacity_usage WHERE code = ${node} ORDER BY 1, 2, 3`
        expect(yield* rows(pass)).toEqual(yield* rows(turns))
        expect((yield* rows(pass)).map((row) => row["used"])).toEqual([1, 7, 5, 8, 4])
        const ledger = (node: string) =>
          sql`SELECT replace(order_id, ${node}, '') AS "order", kind, slot, to_char(day, 'YYYY-MM-DD') AS day, units FROM capacity_ledger WHERE code = ${node} ORDER BY 1, 2, 3, 4`
        expect(yield* ledger(turns)).toEqual(yield* ledger(pass))
        expect(yield* ledger(pass)).toHaveLength(11)
      }))

    it.effect("groups, single orders and releases racing over the same rows in any order neither deadlock nor oversell", () =>
      Effect.gen(function* () {
        const capacity = yield* CapacityRepository
        const sql = yield* SqlClient.SqlClient
        const run = crypto.randomUUID().slice(0, 8)
        const nodes = ["A", "B", "C", "D"].map((letter) => `RACE-${run}-${letter}`)
        const use = (node: string) => ({ use: { resource: { _tag: "Picking" as const, node, pool: "ALL" as const }, date: "2031-03-03", amount: 1 }, total: 25 })
        // Every order takes one unit of each of two nodes, named in an order of its own.
        const order = (i: number) => {
          const first = nodes[i % 4]!
          const second = nodes[(i * 3 + 1) % 4]!
          return { orderId: `race-${run}-${i}`, uses: first === second ? [use(first)] : [use(second), use(first)], request: { i } }
        }
        const fresh = Array.from({ length: 12 }, (_, g) => Array.from({ length: 8 }, (_, k) => order(g * 8 + k)))
        // Four more groups on ids of the groups above, in another order: the order rows are contended too.
        const repeats = Array.from({ length: 4 }, (_, g) => Array.from({ length: 8 }, (_, k) => order(((g + 1) * 8 + k * 5) % 96)).reverse())
        const groups = [...fresh, ...repeats]
        const singles = Array.from({ length: 16 }, (_, i) => order(200 + i))
        const taken = yield* Effect.all([
          Effect.forEach(groups, (group) => capacity.consumeMany(group), { concurrency: "unbounded" }),
          Effect.forEach(singles, (one) => Effect.result(capacity.consume(one.orderId, one.uses, one.request)), { concurrency: "unbounded" }),
          Effect.forEach(groups.slice(0, 3), (group) => capacity.release(group[0]!.orderId), { concurrency: "unbounded" })
        ], { concurrency: "unbounded" })
        const outcomes = taken[0].flat()
        const applied = [
          outcomes.filter((outcome) => outcome._tag === "Done" && Result.isSuccess(outcome.result) && outcome.result.success._tag === "Applied").length,
          taken[1].filter(Result.isSuccess).length
        ]
        // Every order held has exactly its two uses in the ledger, whichever copy of its id took it.
        expect(yield* sql`SELECT o.order_id FROM capacity_orders o LEFT JOIN capacity_ledger l ON l.order_id = o.order_id
                          WHERE o.order_id LIKE ${`race-${run}-%`} GROUP BY o.order_id HAVING count(l.order_id) <> 2`).toEqual([])
        expect(outcomes.some((outcome) => outcome._tag === "Done" && Result.isSuccess(outcome.result) && outcome.result.success._tag === "AlreadyApplied")).toBe(true)
        const rows = yield* sql<{ code: string; used: number }>`SELECT code, used FROM capacity_usage WHERE code LIKE ${`RACE-${run}-%`} ORDER BY code`
        // 112 orders want 1-2 units each of 4 nodes with 25 units: some are refused, none oversold.
        for (const row of rows) expect(row.used).toBeLessThanOrEqual(25)
        const ledger = yield* sql<{ code: string; units: number }>`SELECT code, sum(units)::integer AS units FROM capacity_ledger WHERE code LIKE ${`RACE-${run}-%`} GROUP BY code ORDER BY code`
        expect(ledger).toEqual(rows.map((row) => ({ code: row.code, units: row.used })))
        expect(applied[0]! + applied[1]!).toBeGreaterThan(0)
        expect(rows.reduce((sum, row) => sum + row.used, 0)).toBeGreaterThan(80)
      }))

    it.effect("forgets finished loads older than the cutoff with their errors, batch ledger and events; keeps loads not due, and the products", () =>
      Effect.gen(function* () {
        const { company, prefix } = fresh()
        const sql = yield* SqlClient.SqlClient
        const loads = yield* LoadRepository
        const retention = yield* LoadRetention
        const withErrors = () => loads.create(newLoad(company, { received: 3, failed: 3, errors: [{ sku: "A", error: "bad" }, { sku: "B", error: "bad" }, { sku: "C", error: "bad" }] }))
        // Two finished (one with a persisted batch on its ledger), aged a thousand years: only this test ages
        // loads that far, so the cutoff below takes nobody's history (in a shared database, a server's own
        // sweep may take them first; either way they must be gone). One finished now, one never finished.
        const refused = yield* withErrors()
        const stored = yield* loads.create(newLoad(company, { received: 2, accepted: 2 }))
        yield* (yield* ProductRepository).persistBatch(batch(stored.processCode, company, 0, products(2, { company, prefix })))
        expect(yield* statusOf(stored.processCode)).toBe("COMPLETED")
        const recent = yield* withErrors()
        const running = yield* loads.create(newLoad(company, { received: 1, accepted: 1 }))
        const rowsOf = (processCode: string) =>
          sql<{ readonly errors: number; readonly batches: number; readonly events: number }>`
            SELECT (SELECT count(*)::int FROM load_errors WHERE process_code = ${processCode}) AS errors,
              (SELECT count(*)::int FROM load_batches WHERE process_code = ${processCode}) AS batches,
              (SELECT count(*)::int FROM load_events WHERE process_code = ${processCode}) AS events
          `.pipe(Effect.map((rows) => rows[0]))
        // Counted before they are aged: from then on another server's sweep may take them.
        expect(yield* rowsOf(refused.processCode)).toEqual({ errors: 3, batches: 0, events: 1 })
        expect(yield* rowsOf(stored.processCode)).toEqual({ errors: 0, batches: 1, events: 2 })
        const due = [refused.processCode, stored.processCode]
        yield* sql`UPDATE load_events SET published_at = now() WHERE process_code IN ${sql.in(due)} AND published_at IS NULL`
        yield* sql`UPDATE loads SET completed_at = now() - interval '1000 years' WHERE process_code IN ${sql.in(due)}`
        yield* sql`UPDATE loads SET created_at = now() - interval '1000 years' WHERE process_code = ${running.processCode}`

        const cutoff = 999 * 365 * 86_400_000
        while ((yield* retention.forgetFinished(cutoff, 100)) > 0) continue
        for (const processCode of due) {
          expect(Option.isNone(yield* loads.find(processCode))).toBe(true)
          expect(yield* rowsOf(processCode)).toEqual({ errors: 0, batches: 0, events: 0 })
        }
        for (const load of [recent, running]) expect(Option.isSome(yield* loads.find(load.processCode))).toBe(true)
        expect((yield* rowsOf(recent.processCode))?.errors).toBe(3)
        // The products a load wrote are the catalogue, not its record.
        expect((yield* (yield* ProductRepository).countRows(company)).products).toBe(2)
      }))

    if (Option.isSome(options.url)) {
      it.effect("a batch whose load is forgotten while it waits to count itself is undone: no products, no ledger row", () =>
        Effect.gen(function* () {
          const { company, prefix } = fresh()
          const sql = yield* SqlClient.SqlClient
          const load = yield* (yield* LoadRepository).create(newLoad(company, { received: 5, accepted: 5, batches: 1 }))
          // The sweep's transaction, as it holds the load's row and deletes it.
          const locked = yield* Deferred.make<string>()
          const go = yield* Deferred.make<void>()
          const sweeping = yield* Effect.forkChild(sql.withTransaction(Effect.gen(function* () {
            yield* sql`SELECT 1 FROM loads WHERE process_code = ${load.processCode} FOR UPDATE`
            const [own] = yield* sql<{ xid: string }>`SELECT txid_current()::text AS xid`
            yield* Deferred.succeed(locked, own?.xid ?? "")
            yield* Deferred.await(go)
            yield* sql`DELETE FROM loads WHERE process_code = ${load.processCode}`
          })))
          const xid = yield* Deferred.await(locked)
          const persisting = yield* Effect.forkChild(Effect.flip((yield* ProductRepository).persistBatch(batch(load.processCode, company, 0, products(5, { company, prefix })))))
          // Claimed and written, it waits for that transaction to count itself.
          yield* sql<{ n: number }>`
            SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'transactionid' AND NOT granted AND transactionid::text = ${xid}`.pipe(
            Effect.repeat({ until: (rows) => (rows[0]?.n ?? 0) >= 1, schedule: Schedule.spaced("20 millis") }),
            Effect.timeout("10 seconds")
          )
          yield* Deferred.succeed(go, undefined)
          yield* Fiber.join(sweeping)
          expect((yield* Fiber.join(persisting)).message).toContain("does not exist")
          const ledger = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM load_batches WHERE process_code = ${load.processCode}`
          expect(ledger[0]?.n).toBe(0)
          expect((yield* (yield* ProductRepository).countRows(company)).products).toBe(0)
        }))
    }

    it.effect("the outbox publishes in id order and marks rows only after the callback succeeded", () =>
      Effect.gen(function* () {
        const { company } = fresh()
        const loads = yield* LoadRepository
        const outbox = yield* Outbox
        const load = yield* loads.create(newLoad(company, { received: 1, accepted: 1 }))
        yield* loads.markFailed(load.processCode, "boom")
        const failure = yield* Effect.flip(outbox.publishPending(10_000, () => Effect.fail("redis down" as const)))
        expect(failure).toBe("redis down")
        const pending = yield* outbox.claimUnpublished(10_000)
        const mine = pending.filter((event) => event.processCode === load.processCode)
        expect(mine.map((event) => parseEvent(event.payload).status)).toEqual(["RECEIVED", "FAILED"])
        expect(Number(mine[0]!.id)).toBeLessThan(Number(mine[1]!.id))

        const published: Array<string> = []
        for (;;) {
          const n = yield* outbox.publishPending(500, (events) =>
            Effect.sync(() => published.push(...events.map((event) => event.payload)))
          )
          if (n === 0) break
        }
        const ofLoad = published.map((payload) => parseEvent(payload)).filter((event) => event.processCode === load.processCode)
        expect(ofLoad.map((event) => [event.previousStatus, event.status, event.type])).toEqual([
          [null, "RECEIVED", "LoadStatusChanged"],
          ["RECEIVED", "FAILED", "LoadStatusChanged"]
        ])
        expect(ofLoad[1]?.failureReason).toBe("boom")
        const after = yield* outbox.claimUnpublished(10_000)
        expect(after.some((event) => event.processCode === load.processCode)).toBe(false)
      }))
  })
}
