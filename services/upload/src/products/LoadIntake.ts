import { PublishFailed, StorageFailed } from "@retail/api"
import {
  acceptedMessage,
  LoadAccepted,
  LoadError,
  type LoadSource,
  type LoadStatus,
  LoadSummary,
  makeLoadValidator,
  type Product
} from "@retail/domain"
import { LoadRepository } from "@retail/store"
import { Context, Effect, Layer, Result } from "effect"
import { LoadOwner } from "../publish/LoadOwner.ts"
import { ProductPublisher } from "../publish/ProductPublisher.ts"
import { ProcessCodes } from "../publish/ProcessCodes.ts"

export interface IntakeRequest {
  readonly company: string
  readonly source: LoadSource
  readonly products: ReadonlyArray<unknown>
  /** When the request began (epoch ms, before its body was read): the load's createdAt. */
  readonly startedAt?: number
}

const initialStatus = (accepted: number, failed: number): LoadStatus =>
  accepted > 0 ? "RECEIVED" : failed > 0 ? "COMPLETED_WITH_ERRORS" : "COMPLETED"

/**
 * One whole load held in memory (at most a few thousand products): validate every product,
 * record the load, publish the valid ones atomically, answer LoadAccepted or LoadSummary.
 */
export class LoadIntake extends Context.Service<LoadIntake>()("@retail/upload/LoadIntake", {
  make: Effect.gen(function*() {
    const loads = yield* LoadRepository
    const publisher = yield* ProductPublisher
    const owner = yield* LoadOwner

    const accept = (request: IntakeRequest) =>
      Effect.gen(function*() {
        const processCode = yield* (yield* ProcessCodes).next
        const validator = makeLoadValidator(request.company)
        const accepted: Array<Product> = []
        const errors: Array<LoadError> = []
        request.products.forEach((raw, index) =>
          Result.match(validator.validate(raw, index), {
            onFailure: (failure) => errors.push(new LoadError(failure, { disableChecks: true })),
            onSuccess: (product) => accepted.push(product)
          })
        )

        yield* loads.create({
          processCode,
          company: request.company,
          source: request.source,
          received: request.products.length,
          accepted: accepted.length,
          failed: errors.length,
          errors,
          status: initialStatus(accepted.length, errors.length),
          owner: owner.id,
          batches: publisher.batchesFor(accepted.length),
          queue: publisher.stream,
          ...(request.startedAt === undefined ? {} : { startedAt: request.startedAt })
        }).pipe(
          Effect.tapError((error) => Effect.logError("could not record a load", error)),
          Effect.mapError(() => new StorageFailed({ message: "The load could not be recorded: the database is unavailable. Nothing was published; retry later." }))
        )

        if (accepted.length > 0) {
          yield* publisher.publish({ processCode, company: request.company }, accepted).pipe(
            Effect.tapError((error) =>
              Effect.logError("publishing a load failed", error).pipe(
                Effect.andThen(loads.markFailed(processCode, `publishing to the messaging system failed: ${error.message}`)),
                Effect.catch((markError) => Effect.logError("could not mark the load FAILED", markError))
              )
            ),
            Effect.mapError(() =>
              new PublishFailed({
                message: `The products could not be sent to the messaging system; load ${processCode} is FAILED and nothing was published. Retry later.`
              })
            )
          )
          // Published is what counts; a worker may even have finished already, so a failure here only delays the PROCESSING event.
          yield* loads.markProcessing(processCode).pipe(
            Effect.catch((error) => Effect.logWarning("could not mark the load PROCESSING", error))
          )
        }

        return errors.length === 0
          ? new LoadAccepted({ message: acceptedMessage(accepted.length, processCode), processCode })
          : new LoadSummary({
            total: request.products.length,
            processing: accepted.length,
            failed: errors.length,
            errors,
            processCode
          })
      })

    return { accept } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
