import { isFinalStatus, LoadError, LoadErrorsPage, type LoadSource, type LoadStatus, type LoadView } from "@retail/domain"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { adjustCounts, type CountsDelta, fail, recordChange, recordedBatchNos, startProcessing } from "./LoadAccounting.ts"
import { type ErrorEntry, insertErrors } from "./LoadErrors.ts"
import { countProducts } from "./LoadMetrics.ts"
import { ChangedLoadRow, LoadRow, loadColumns, toLoadView } from "./LoadRow.ts"
import { InvalidCursor, storeOperation, StoreError } from "./StoreError.ts"

export interface NewLoad {
  readonly processCode: string
  readonly company: string
  readonly source: LoadSource
  readonly received: number
  readonly accepted: number
  readonly failed: number
  readonly errors: ReadonlyArray<ErrorEntry>
  /** Defaults to RECEIVED; a load with nothing accepted is stored final whatever is given. */
  readonly status?: LoadStatus
  /** True for a streamed (file) load whose counts are still growing; it completes only after finishReceiving. */
  readonly receiving?: boolean
  /** The server instance that publishes the load (see LoadOwnership). */
  readonly owner?: string
  /** Queue entries the load is published as, when known before publishing. */
  readonly batches?: number
  /** The stream it is published on: only reconcilers of that stream judge it (see LoadOwnership). */
  readonly queue?: string
  /** When the load's request began (epoch ms; a file load is recorded once its file was read): its created_at. Default: now. */
  readonly startedAt?: number
}

export interface ErrorsQuery {
  readonly cursor: Option.Option<string>
  readonly limit: number
}

export interface CountsIncrement {
  readonly received: number
  readonly accepted: number
  readonly failed: number
}

const initialStatus = (load: NewLoad): LoadStatus => {
  const status = load.status ?? "RECEIVED"
  if (load.receiving === true || load.accepted > 0 || isFinalStatus(status)) return status
  return load.failed === 0 ? "COMPLETED" : "COMPLETED_WITH_ERRORS"
}

const CURSOR = /^\d{1,18}$/
const decodeLoadRows = Schema.decodeUnknownEffect(Schema.Array(LoadRow))
const decodeChangedRows = Schema.decodeUnknownEffect(Schema.Array(ChangedLoadRow))
const decodeErrorRows = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ id: Schema.String, sku: Schema.String, error: Schema.String })))

const unknownLoad = (operation: string, processCode: string) =>
  new StoreError({ operation, message: `load ${processCode} does not exist` })

export class LoadRepository extends Context.Service<LoadRepository>()("@retail/store/LoadRepository", {
  make: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** Counter changes that must find the load; the outbox learns of any status change. */
    const adjust = (operation: string, processCode: string, delta: CountsDelta) =>
      Effect.gen(function* () {
        const row = yield* adjustCounts(sql, processCode, delta)
        if (Option.isNone(row)) return yield* unknownLoad(operation, processCode)
        yield* countProducts(row.value.source, delta)
        return yield* recordChange(sql, row)
      })

    const create = (load: NewLoad): Effect.Effect<LoadView, StoreError> => {
      const status = initialStatus(load)
      return sql
        .withTransaction(
          Effect.gen(function* () {
            const rows = yield* sql`
              INSERT INTO loads (process_code, company, source, status, receiving, received, accepted, failed, completed_at, owner, batches, queue, created_at)
              VALUES (${load.processCode}, ${load.company}, ${load.source}, ${status}, ${load.receiving ?? false},
                ${load.received}, ${load.accepted}, ${load.failed}, ${isFinalStatus(status) ? sql`now()` : sql`NULL`},
                ${load.owner ?? null}, ${load.batches ?? null}, ${load.queue ?? null},
                ${load.startedAt === undefined ? sql`now()` : sql`to_timestamp(${load.startedAt / 1000})`})
              RETURNING ${sql.literal(loadColumns("loads"))}, NULL::text AS "previousStatus"
            `.pipe(Effect.flatMap(decodeChangedRows))
            yield* insertErrors(sql, load.processCode, load.errors)
            yield* countProducts(load.source, load)
            yield* recordChange(sql, Option.fromNullishOr(rows[0]))
            return rows
          })
        )
        .pipe(
          storeOperation("createLoad"),
          Effect.flatMap((rows) =>
            rows[0] === undefined ? Effect.fail(unknownLoad("createLoad", load.processCode)) : Effect.succeed(toLoadView(rows[0]))
          )
        )
    }

    const markProcessing = (processCode: string): Effect.Effect<boolean, StoreError> =>
      sql
        .withTransaction(Effect.flatMap(startProcessing(sql, processCode), (row) => recordChange(sql, row)))
        .pipe(storeOperation("markProcessing"))

    const markFailed = (processCode: string, reason: string): Effect.Effect<boolean, StoreError> =>
      sql
        .withTransaction(Effect.flatMap(fail(sql, processCode, reason), (row) => recordChange(sql, row)))
        .pipe(storeOperation("markFailed"))

    /**
     * FAILED for batches the queue lost, counted under the load's row lock: a batch whose
     * transaction was waiting for that lock (it counts itself under it, at its end) is recorded by
     * then, so only what is missing is counted. `missingOf` gets the batch numbers recorded; with
     * none missing nothing changes. Some(missing) when the load was marked FAILED now.
     */
    const markFailedLost = (
      processCode: string,
      missingOf: (recorded: ReadonlySet<number>) => number,
      reasonOf: (missing: number) => string
    ): Effect.Effect<Option.Option<number>, StoreError> =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            yield* sql`SELECT 1 FROM loads WHERE process_code = ${processCode} FOR UPDATE`
            const missing = missingOf(new Set(yield* recordedBatchNos(sql, processCode)))
            if (missing === 0) return Option.none()
            const row = yield* fail(sql, processCode, reasonOf(missing))
            yield* recordChange(sql, row)
            return Option.map(row, () => missing)
          })
        )
        .pipe(storeOperation("markFailedLost"))

    /**
     * True when recorded now; false when this batch was already recorded (as dead or persisted), or
     * its load is no longer there (forgotten after LOAD_RETENTION_DAYS: nothing is left to count it
     * on, and its entry must still be able to leave the queue for the dead letters).
     */
    const recordDeadBatch = (
      processCode: string,
      batchNo: number,
      products: ReadonlyArray<{ readonly sku: string }>,
      reason: string
    ): Effect.Effect<boolean, StoreError> =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            // Held against a sweep forgetting the load (its FOR UPDATE skips the row meanwhile). The weakest
            // lock that does so: a persist of this same batch, which claims its ledger row before it updates
            // the load, can still finish, and ours then finds the batch recorded.
            const load = yield* sql`SELECT 1 AS found FROM loads WHERE process_code = ${processCode} FOR KEY SHARE`
            if (load.length === 0) return false
            const claimed = yield* sql`
              INSERT INTO load_batches (process_code, batch_no, products, outcome)
              VALUES (${processCode}, ${batchNo}, ${products.length}, 'DEAD')
              ON CONFLICT DO NOTHING
              RETURNING batch_no
            `
            if (claimed.length === 0) return false
            yield* insertErrors(sql, processCode, products.map(({ sku }) => ({ sku, error: reason })))
            yield* adjust("recordDeadBatch", processCode, { failed: products.length, deadLettered: products.length })
            return true
          })
        )
        .pipe(storeOperation("recordDeadBatch"))

    const addErrors = (processCode: string, errors: ReadonlyArray<ErrorEntry>): Effect.Effect<void, StoreError> =>
      insertErrors(sql, processCode, errors).pipe(storeOperation("addErrors"))

    const addCounts = (processCode: string, counts: CountsIncrement): Effect.Effect<void, StoreError> =>
      sql.withTransaction(adjust("addCounts", processCode, counts)).pipe(storeOperation("addCounts"), Effect.asVoid)

    /**
     * Receiving ended after `batches` queue entries were published. The load's status afterwards:
     * FAILED when it was failed meanwhile (its owner was taken for gone), so the caller is not told 200.
     */
    const finishReceiving = (processCode: string, batches: number): Effect.Effect<LoadStatus, StoreError> =>
      sql
        .withTransaction(Effect.gen(function* () {
          yield* sql`UPDATE loads SET batches = ${batches} WHERE process_code = ${processCode}`
          const row = yield* adjustCounts(sql, processCode, { finishReceiving: true })
          if (Option.isNone(row)) return yield* unknownLoad("finishReceiving", processCode)
          yield* recordChange(sql, row)
          return row.value.status
        }))
        .pipe(storeOperation("finishReceiving"))

    const find = (processCode: string): Effect.Effect<Option.Option<LoadView>, StoreError> =>
      sql`SELECT ${sql.literal(loadColumns("loads"))} FROM loads WHERE process_code = ${processCode}`.pipe(
        Effect.flatMap(decodeLoadRows),
        Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), toLoadView)),
        storeOperation("findLoad")
      )

    const errors = (processCode: string, query: ErrorsQuery): Effect.Effect<LoadErrorsPage, StoreError | InvalidCursor> =>
      Effect.gen(function* () {
        const after = Option.getOrElse(query.cursor, () => "0")
        if (!CURSOR.test(after)) {
          return yield* new InvalidCursor({ cursor: after, message: "must be a value returned as nextCursor" })
        }
        const limit = Math.max(1, Math.floor(query.limit))
        const rows = yield* sql`
          SELECT id::text AS id, sku, error FROM load_errors
          WHERE process_code = ${processCode} AND id > ${after}::bigint
          ORDER BY load_errors.id
          LIMIT ${limit + 1}
        `.pipe(Effect.flatMap(decodeErrorRows), storeOperation("loadErrors"))
        const page = rows.slice(0, limit)
        const last = page[page.length - 1]
        return new LoadErrorsPage({
          processCode,
          errors: page.map(({ sku, error }) => new LoadError({ sku, error })),
          nextCursor: rows.length > limit && last !== undefined ? last.id : null
        })
      })

    return { create, markProcessing, markFailed, markFailedLost, recordDeadBatch, addErrors, addCounts, finishReceiving, find, errors } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
