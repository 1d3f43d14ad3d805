import type { Product, ProductBatch } from "@retail/domain"
import { StoreMetrics, timedSeconds } from "@retail/metrics"
import { Context, Data, Effect, Exit, Layer, Option, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { adjustCounts, recordChange } from "./LoadAccounting.ts"
import { countProducts } from "./LoadMetrics.ts"
import { countRows, findChildren, type ProductChildren, type RowCounts } from "./ProductChildren.ts"
import { latestPerCode, PRODUCT_COLUMNS, upsertEncoded, upsertProducts } from "./ProductUpsert.ts"
import { CHILD_COLUMNS } from "./ChildColumns.ts"
import { columnLength, type DecodedBatch } from "./EncodedBatch.ts"
import { findStoredProduct } from "./StoredProduct.ts"
import { storeOperation, StoreError } from "./StoreError.ts"

export type PersistOutcome =
  | { readonly _tag: "Skipped"; readonly reason: "LoadFailed" | "AlreadyRecorded" }
  | { readonly _tag: "Persisted"; readonly written: number; readonly skippedAsOlder: number }

const observePersist = (seconds: number, exit: Exit.Exit<PersistOutcome, StoreError>) => {
  const outcome = Exit.isSuccess(exit) ? exit.value : undefined
  StoreMetrics.batchPersistSeconds.observe({ outcome: outcome === undefined ? "failed" : outcome._tag === "Persisted" ? "persisted" : "skipped" }, seconds)
  if (outcome?._tag === "Persisted") StoreMetrics.rowsWritten.add({ table: "products" }, outcome.written)
}

const decodeStatus = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ status: Schema.String })))

/** The load FAILED while the batch was in its transaction: undone (see `persist`). */
class FailedMidBatch extends Data.TaggedError("FailedMidBatch")<{}> {}

export class ProductRepository extends Context.Service<ProductRepository>()("@retail/store/ProductRepository", {
  make: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const unknownLoad = (processCode: string) =>
      new StoreError({ operation: "persistBatch", message: `load ${processCode} does not exist` })

    /**
     * One transaction: claims (process_code, batch_no), upserts the products (`write`, given the
     * transaction's client), counts them as persisted and completes the load when it is fully
     * accounted for. A replay changes nothing.
     */
    const persist = (
      batch: { readonly processCode: string; readonly batchNo: number; readonly products: number },
      write: Effect.Effect<{ readonly written: number; readonly kept: number }, SqlError.SqlError | Schema.SchemaError>
    ): Effect.Effect<PersistOutcome, StoreError> =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const [load] = yield* sql`SELECT status FROM loads WHERE process_code = ${batch.processCode}`.pipe(
              Effect.flatMap(decodeStatus)
            )
            if (load === undefined) return yield* unknownLoad(batch.processCode)
            if (load.status === "FAILED") return { _tag: "Skipped", reason: "LoadFailed" } as const
            const claimed = yield* sql`
              INSERT INTO load_batches (process_code, batch_no, products, outcome)
              VALUES (${batch.processCode}, ${batch.batchNo}, ${batch.products}, 'PERSISTED')
              ON CONFLICT DO NOTHING
              RETURNING batch_no
            `
            if (claimed.length === 0) return { _tag: "Skipped", reason: "AlreadyRecorded" } as const
            const { written, kept } = yield* write
            const row = yield* adjustCounts(sql, batch.processCode, { persisted: batch.products })
            // FAILED meanwhile: a reconciler judged batches lost, counting those recorded under the
            // load's lock, which this batch takes only now. Undone, so that what is stored is what
            // the load counts, as for a batch arriving after the load FAILED.
            // Gone meanwhile (forgotten after LOAD_RETENTION_DAYS while this replay ran): undone, so that no
            // ledger row outlives its load; the next delivery finds no load.
            if (Option.isNone(row)) return yield* unknownLoad(batch.processCode)
            if (row.value.previousStatus === "FAILED") return yield* new FailedMidBatch()
            yield* countProducts(row.value.source, { persisted: batch.products })
            yield* recordChange(sql, row)
            return { _tag: "Persisted", written, skippedAsOlder: kept - written } as const
          })
        )
        .pipe(
          Effect.catchTag("FailedMidBatch", () => Effect.succeed({ _tag: "Skipped", reason: "LoadFailed" } as const)),
          storeOperation("persistBatch"),
          (persisting) => timedSeconds(persisting, observePersist)
        )

    const persistBatch = (batch: ProductBatch): Effect.Effect<PersistOutcome, StoreError> =>
      Effect.suspend(() => {
        const products = latestPerCode(batch.products)
        return persist(
          { processCode: batch.processCode, batchNo: batch.batchNo, products: batch.products.length },
          products.length === 0
            ? Effect.succeed({ written: 0, kept: 0 })
            : Effect.map(upsertProducts(sql, batch.company, batch.processCode, products), (written) => ({ written, kept: products.length }))
        )
      })

    /** As persistBatch, for a batch encoded at intake (EncodedBatch.ts): its columns go to PostgreSQL as they are. */
    const persistEncodedBatch = (batch: DecodedBatch): Effect.Effect<PersistOutcome, StoreError> =>
      Effect.suspend(() => {
        const { header, columns } = batch
        const kept = columnLength(columns[0]!)
        const products = columns.slice(0, PRODUCT_COLUMNS.length)
        const children = CHILD_COLUMNS.map(({ oid }, i) => ({ oid, bytes: columns[PRODUCT_COLUMNS.length + i]! }))
        return persist(
          header,
          kept === 0
            ? Effect.succeed({ written: 0, kept: 0 })
            : Effect.map(upsertEncoded(sql, header.company, header.processCode, kept, products, children), (written) => ({ written, kept }))
        )
      })

    /** The product as last written, from its columns and child rows. */
    const findProduct = (company: string, productCode: string): Effect.Effect<Option.Option<Product>, StoreError> =>
      findStoredProduct(sql, company, productCode).pipe(storeOperation("findProduct"))

    const children = (company: string, productCode: string): Effect.Effect<ProductChildren, StoreError> =>
      findChildren(sql, company, productCode).pipe(storeOperation("findChildren"))

    const counts = (company: string): Effect.Effect<RowCounts, StoreError> =>
      countRows(sql, company).pipe(storeOperation("countRows"))

    return { persistBatch, persistEncodedBatch, findProduct, findChildren: children, countRows: counts } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
