import { PublishFailed, StorageFailed } from "@retail/api"
import { acceptedMessage, LoadAccepted, type LoadSource, LoadSummary } from "@retail/domain"
import type { QueueError } from "@retail/queue"
import { type ErrorEntry, LoadRepository, type StoreError } from "@retail/store"
import { Effect, Stream } from "effect"
import { ProductPublisher } from "../ProductPublisher.ts"
import type { LoadSpool, SpoolLine } from "./LoadSpool.ts"
import type { SpoolTotals } from "./SpoolItems.ts"

export interface SpooledLoad {
  readonly company: string
  readonly source: LoadSource
  readonly spool: LoadSpool
  readonly totals: SpoolTotals
}

/**
 * Second half of a file load, run only once the whole upload was read without a fault: records
 * the load as receiving, replays the spool (publishing each batch, adding counts and errors as
 * it goes) and finishes receiving. A failure marks the load FAILED.
 */
export class FileLoadPublisher extends Effect.Service<FileLoadPublisher>()("@retail/upload/FileLoadPublisher", {
  effect: Effect.gen(function*() {
    const loads = yield* LoadRepository
    const publisher = yield* ProductPublisher

    const publish = ({ company, source, spool, totals }: SpooledLoad) =>
      Effect.gen(function*() {
        const processCode = crypto.randomUUID()
        const load = { processCode, company }
        yield* loads.create({ processCode, company, source, received: 0, accepted: 0, failed: 0, errors: [], receiving: true }).pipe(
          Effect.tapError((error) => Effect.logError("could not record a file load", error)),
          Effect.mapError(() => new StorageFailed({ message: "The load could not be recorded: the database is unavailable. Nothing was published; retry later." }))
        )

        let batchNo = 0
        const replay = (line: SpoolLine): Effect.Effect<void, QueueError | StoreError> => {
          if (line._tag === "Errors") {
            const errors = JSON.parse(line.json) as ReadonlyArray<ErrorEntry>
            return Effect.zipRight(
              loads.addErrors(processCode, errors),
              loads.addCounts(processCode, { received: errors.length, accepted: 0, failed: errors.length })
            )
          }
          const batch = batchNo++
          return publisher.publishEncoded(load, batch, line.productsJson).pipe(
            Effect.zipRight(loads.addCounts(processCode, { received: line.count, accepted: line.count, failed: 0 })),
            Effect.zipRight(
              batch === 0
                ? loads.markProcessing(processCode).pipe(Effect.catchAll((error) => Effect.logWarning("could not mark the load PROCESSING", error)))
                : Effect.void
            )
          )
        }

        yield* spool.lines.pipe(
          Stream.runForEach(replay),
          Effect.zipRight(loads.finishReceiving(processCode)),
          Effect.catchAll((error) =>
            Effect.logError("publishing a file load failed", error).pipe(
              Effect.zipRight(loads.markFailed(processCode, `publishing the file load failed after ${batchNo} batches: ${error.message}`)),
              Effect.catchAll((markError) => Effect.logError("could not mark the load FAILED", markError)),
              Effect.zipRight(Effect.fail(
                error._tag === "StorageFailed"
                  ? error
                  : error._tag === "StoreError"
                  ? new StorageFailed({ message: `Load ${processCode} is FAILED: the database became unavailable while it was published. Retry later.` })
                  : new PublishFailed({
                    message: `The products could not be sent to the messaging system; load ${processCode} is FAILED after ${batchNo} batches. Retry later.`
                  })
              ))
            )
          ),
          // Cut off (shutdown past its grace, or the client went away): the load must not stay RECEIVED/PROCESSING forever.
          Effect.onInterrupt(() =>
            loads.markFailed(processCode, `publishing the file load was interrupted (server shutdown or client gone) after ${batchNo} batches`).pipe(
              Effect.catchAll((markError) => Effect.logError("could not mark an interrupted file load FAILED", markError))
            )
          )
        )

        return totals.failed === 0
          ? new LoadAccepted({ message: acceptedMessage(totals.accepted, processCode), processCode })
          : new LoadSummary({ total: totals.total, processing: totals.accepted, failed: totals.failed, errors: totals.firstErrors, processCode })
      })

    return { publish } as const
  })
}) {}
