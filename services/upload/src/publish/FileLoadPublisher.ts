import { PublishFailed, StorageFailed } from "@retail/api"
import { acceptedMessage, LoadAccepted, type LoadSource, LoadSummary } from "@retail/domain"
import type { QueueError } from "@retail/queue"
import { type ErrorEntry, LoadRepository, type StoreError } from "@retail/store"
import { Clock, Context, Effect, Exit, Layer, Stream } from "effect"
import { LoadOwner } from "./LoadOwner.ts"
import { ProductPublisher, type SpooledBatch } from "./ProductPublisher.ts"
import { spooledBytes } from "./BatchEntries.ts"
import { BufferPool } from "./BufferPool.ts"
import type { LoadSpool, SpoolRecord } from "../spool/LoadSpool.ts"
import type { SpoolTotals } from "../spool/SpoolItems.ts"
import { ProcessCodes } from "./ProcessCodes.ts"

/**
 * Batches published together, in one MULTI: 400 round trips to Redis become 50 for 100k products,
 * and a group is at most a few MiB in memory.
 */
const GROUP_BATCHES = 8
const GROUP_BYTES = 4 * 1024 * 1024
/**
 * How often the load's counts are brought up to date while it is published: a commit per group
 * (50 for 100k products, each waiting for its own round trip) became a few, and progress is still
 * seen moving every tenth of a second.
 */
const COUNTS_EVERY_MS = 100

export interface SpooledLoad {
  readonly company: string
  readonly source: LoadSource
  /** Only read: its records, in the order written. */
  readonly spool: Pick<LoadSpool, "records">
  readonly totals: SpoolTotals
  /** When the request began (epoch ms): the load's createdAt, so its time to COMPLETED counts the upload. */
  readonly startedAt?: number
}

/**
 * Second half of a file load, run only once the whole upload was read without a fault: records
 * the load as receiving, replays the spool (publishing each batch, adding counts and errors as
 * it goes) and finishes receiving. A failure marks the load FAILED.
 */
export class FileLoadPublisher extends Context.Service<FileLoadPublisher>()("@retail/upload/FileLoadPublisher", {
  make: Effect.gen(function*() {
    const loads = yield* LoadRepository
    const publisher = yield* ProductPublisher
    const owner = yield* LoadOwner

    /**
     * A load whose publishing ended unsettled (marking it FAILED failed too, a defect, or a cut-off
     * before the interrupt handler below was in place) is left to the reconciler, which fails it.
     */
    const publish = (spooled: SpooledLoad) =>
      Effect.gen(function*() {
        const processCode = yield* (yield* ProcessCodes).next
        const created = { load: false }
        return yield* publishAs(processCode, spooled, created).pipe(
          Effect.onExit((exit) => Exit.isSuccess(exit) || !created.load ? Effect.void : LoadOwner.abandon(owner, processCode))
        )
      })

    const publishAs = (processCode: string, { company, source, spool, totals, startedAt }: SpooledLoad, created: { load: boolean }) =>
      Effect.gen(function*() {
        const load = { processCode, company }
        yield* loads.create({ processCode, company, source, received: 0, accepted: 0, failed: 0, errors: [], receiving: true, owner: owner.id, queue: publisher.stream, ...(startedAt === undefined ? {} : { startedAt }) }).pipe(
          Effect.tapError((error) => Effect.logError("could not record a file load", error)),
          Effect.mapError(() => new StorageFailed({ message: "The load could not be recorded: the database is unavailable. Nothing was published; retry later." }))
        )
        created.load = true

        const buffers = new BufferPool(2 * GROUP_BATCHES)
        let nextBatchNo = 0
        let published = 0
        let group: Array<SpooledBatch> = []
        let groupProducts = 0
        let groupBytes = 0
        let counted = { received: 0, accepted: 0, failed: 0 }
        let countedAt = yield* Clock.currentTimeMillis

        /** Adds what was just published or recorded to the counts, and commits them when they are due (or `now`). */
        const count = (received: number, accepted: number, now: boolean) =>
          Effect.flatMap(Clock.currentTimeMillis, (time): Effect.Effect<void, StoreError> => {
            counted = { received: counted.received + received, accepted: counted.accepted + accepted, failed: counted.failed + received - accepted }
            if (counted.received === 0 || (!now && time - countedAt < COUNTS_EVERY_MS)) return Effect.void
            const increment = counted
            counted = { received: 0, accepted: 0, failed: 0 }
            countedAt = time
            return loads.addCounts(processCode, increment)
          })

        const publishGroup = Effect.suspend((): Effect.Effect<void, QueueError | StoreError> => {
          if (group.length === 0) return Effect.void
          const batches = group
          const products = groupProducts
          group = []
          groupProducts = 0
          groupBytes = 0
          const first = published === 0
          return publisher.publishEncoded(load, batches, buffers.take).pipe(
            Effect.tap((entries) =>
              Effect.sync(() => {
                published += batches.length
                for (const entry of entries) buffers.give(entry)
                for (const batch of batches) buffers.give(spooledBytes(batch))
              })
            ),
            Effect.andThen(count(products, products, first)),
            Effect.andThen(
              first
                ? loads.markProcessing(processCode).pipe(Effect.catch((error) => Effect.logWarning("could not mark the load PROCESSING", error)))
                : Effect.void
            )
          )
        })

        const replay = (record: SpoolRecord): Effect.Effect<void, QueueError | StoreError> => {
          if (record._tag === "Errors") {
            const errors = JSON.parse(record.json) as ReadonlyArray<ErrorEntry>
            return Effect.andThen(loads.addErrors(processCode, errors), count(errors.length, 0, false))
          }
          const batch: SpooledBatch = record._tag === "Columns"
            ? { batchNo: nextBatchNo++, count: record.count, body: record.body }
            : { batchNo: nextBatchNo++, productsJson: record.productsJson }
          group.push(batch)
          groupProducts += record.count
          groupBytes += spooledBytes(batch).length
          return group.length >= GROUP_BATCHES || groupBytes >= GROUP_BYTES ? publishGroup : Effect.void
        }

        yield* spool.records(buffers.take).pipe(
          Stream.runForEach(replay),
          Effect.andThen(publishGroup),
          Effect.andThen(count(0, 0, true)),
          Effect.andThen(Effect.suspend(() => loads.finishReceiving(processCode, nextBatchNo))),
          Effect.flatMap((status) =>
            status === "FAILED"
              ? Effect.fail(new PublishFailed({
                message: `Load ${processCode} was failed while it was published (this server was taken for gone: see docs/loads.md); send the file again.`
              }))
              // Published, but its first group's PROCESSING mark failed: the reconciler marks it.
              : status === "RECEIVED" && published > 0
              ? LoadOwner.abandon(owner, processCode)
              : Effect.void
          ),
          Effect.catch((error) =>
            Effect.gen(function*() {
              yield* Effect.logError("publishing a file load failed", error)
              // What was published before the failure is counted, as far as the database lets it be.
              yield* Effect.ignore(count(0, 0, true))
              const marked = yield* loads.markFailed(processCode, `publishing the file load failed after ${published} batches: ${error.message}`).pipe(
                Effect.as(true),
                Effect.catch((markError) => Effect.as(Effect.logError("could not mark the load FAILED", markError), false))
              )
              // Told the truth: a load that could not be marked FAILED now is failed by this server once the database is back (AbandonedLoads).
              const unmarked = `it could not be marked FAILED yet, and the server fails it once the database is back (GET /v1/loads/${processCode})`
              return yield* Effect.fail(
                error._tag === "StorageFailed"
                  ? error
                  : error._tag === "StoreError"
                  ? new StorageFailed({
                    message: marked
                      ? `Load ${processCode} is FAILED: the database became unavailable while it was published. Retry later.`
                      : `Load ${processCode} was not published whole: the database became unavailable; ${unmarked}. Retry later.`
                  })
                  : new PublishFailed({
                    message: marked
                      ? `The products could not be sent to the messaging system; load ${processCode} is FAILED after ${published} batches. Retry later.`
                      : `The products could not be sent to the messaging system after ${published} batches; ${unmarked}. Retry later.`
                  })
              )
            })
          ),
          // Cut off (shutdown past its grace, or the client went away): the load must not stay RECEIVED/PROCESSING forever.
          Effect.onInterrupt(() =>
            loads.markFailed(processCode, `publishing the file load was interrupted (server shutdown or client gone) after ${published} batches`).pipe(
              Effect.catch((markError) => Effect.logError("could not mark an interrupted file load FAILED", markError))
            )
          )
        )

        return totals.failed === 0
          ? new LoadAccepted({ message: acceptedMessage(totals.accepted, processCode), processCode })
          : new LoadSummary({ total: totals.total, processing: totals.accepted, failed: totals.failed, errors: totals.firstErrors, processCode })
      })

    return { publish } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
