import { Deferred, Effect, Schema } from "effect"
import { STORED_DOCUMENT } from "../../support/StoredProducts.ts"
import { withSql } from "./Postgres.ts"

/**
 * Holds row locks on the given loads in an open transaction until the returned effect is run:
 * a worker persisting a batch of them then waits inside its transaction, with the entry pending.
 */
export const holdLoadLocks = (url: string, processCodes: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const locked = yield* Deferred.make<void>()
    const release = yield* Deferred.make<void>()
    yield* withSql(url, (sql) =>
      sql.withTransaction(
        sql`SELECT process_code FROM loads WHERE process_code::text IN ${sql.in(processCodes)} FOR UPDATE`.pipe(
          Effect.andThen(Deferred.succeed(locked, undefined)),
          Effect.andThen(Deferred.await(release))
        )
      )).pipe(Effect.ignore, Effect.forkScoped)
    yield* Deferred.await(locked)
    return Deferred.succeed(release, undefined)
  })

const Counts = Schema.Array(Schema.Struct({ accepted: Schema.Number, persisted: Schema.Number }))

/** Accepted and persisted products over the given loads. */
export const loadTotals = (url: string, processCodes: ReadonlyArray<string>) =>
  withSql(url, (sql) =>
    sql`SELECT coalesce(sum(accepted), 0)::int AS accepted, coalesce(sum(persisted), 0)::int AS persisted
        FROM loads WHERE process_code::text IN ${sql.in(processCodes)}`.pipe(
      Effect.flatMap(Schema.decodeUnknownEffect(Counts)),
      Effect.map((rows) => rows[0] ?? { accepted: 0, persisted: 0 })
    ))

const Stored = Schema.Array(Schema.Struct({
  product_code: Schema.String,
  document: Schema.Unknown,
  barcodes: Schema.Number,
  hierarchies: Schema.Number,
  attributes: Schema.Number
}))

/** Every stored product of a company whose code starts with `prefix`, as JSON, with its child row counts. */
export const storedProducts = (url: string, company: string, prefix: string) =>
  withSql(url, (sql) =>
    sql`SELECT p.product_code, ${sql.literal(STORED_DOCUMENT)} AS document,
          (SELECT count(*) FROM product_barcodes b WHERE b.company = p.company AND b.product_code = p.product_code)::int AS barcodes,
          (SELECT count(*) FROM product_hierarchies h WHERE h.company = p.company AND h.product_code = p.product_code)::int AS hierarchies,
          (SELECT count(*) FROM product_attributes a WHERE a.company = p.company AND a.product_code = p.product_code)::int AS attributes
        FROM products p WHERE p.company = ${company} AND p.product_code LIKE ${`${prefix}%`}
        ORDER BY p.product_code`.pipe(Effect.flatMap(Schema.decodeUnknownEffect(Stored))))

const Batches = Schema.Array(Schema.Struct({
  process_code: Schema.String,
  batch_no: Schema.Number,
  products: Schema.Number,
  outcome: Schema.String
}))

/** Every `load_batches` row (the batches persisted or dead-lettered), with its product count. */
export const recordedBatches = (url: string) =>
  withSql(url, (sql) =>
    sql`SELECT process_code::text AS process_code, batch_no, products, outcome FROM load_batches ORDER BY process_code, batch_no`.pipe(
      Effect.flatMap(Schema.decodeUnknownEffect(Batches))
    ))

const LoadRows = Schema.Array(Schema.Struct({ process_code: Schema.String, status: Schema.String, receiving: Schema.Boolean }))

/** The loads of a company as the database has them (a load is recorded once its file was read whole). */
export const loadsOf = (url: string, company: string) =>
  withSql(url, (sql) =>
    sql`SELECT process_code::text AS process_code, status, receiving FROM loads WHERE company = ${company}`.pipe(
      Effect.flatMap(Schema.decodeUnknownEffect(LoadRows))
    ))
