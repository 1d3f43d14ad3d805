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
import type { QueueError } from "@retail/queue"
import { LoadRepository } from "@retail/store"
import { Context, Effect, Exit, Layer, Result } from "effect"
import { LoadOwner } from "../publish/LoadOwner.ts"
import { type LoadRef, ProductPublisher } from "../publish/ProductPublisher.ts"
import { ProcessCodes } from "../publish/ProcessCodes.ts"
import type { AcceptedProducts } from "./ProductsBody.ts"

export interface IntakeRequest {
  readonly company: string
  readonly source: LoadSource
  readonly products: ReadonlyArray<unknown>
  /** When the request began (epoch ms, before its body was read): the load's createdAt. */
  readonly startedAt?: number
}

/** Products already validated (`validateProductsBody`): failures in product order, accepted ones as JSON bytes or encoded rows. */
export interface ValidatedIntake {
  readonly company: string
  readonly source: LoadSource
  readonly received: number
  readonly errors: ReadonlyArray<LoadError>
  readonly accepted: AcceptedProducts
  readonly startedAt?: number
}

const initialStatus = (accepted: number, failed: number): LoadStatus =>
  accepted > 0 ? "RECEIVED" : failed > 0 ? "COMPLETED_WITH_ERRORS" : "COMPLETED"

/** What `record` needs of a load whose products were validated, and how to publish its accepted ones. */
interface Outcome {
  readonly company: string
  readonly source: LoadSource
  readonly received: number
  readonly accepted: number
  readonly errors: ReadonlyArray<LoadError>
  readonly startedAt?: number | undefined
  readonly publish: (load: LoadRef) => Effect.Effect<number, QueueError>
}

/**
 * One whole load held in memory (at most a few thousand products): validate every product (or take
 * them validated), record the load, publish the valid ones atomically, answer LoadAccepted or LoadSummary.
 */
export class LoadIntake extends Context.Service<LoadIntake>()("@retail/upload/LoadIntake", {
  make: Effect.gen(function*() {
    const loads = yield* LoadRepository
    const publisher = yield* ProductPublisher
    const owner = yield* LoadOwner

    /**
     * Whatever ends the request before its load is settled (publishing and marking it FAILED both
     * failed, the client went away, a defect) leaves the load to the reconciler, which settles it
     * as a dead owner's: PROCESSING if its batches are on the queue, FAILED if not.
     */
    const record = (outcome: Outcome) =>
      Effect.gen(function*() {
        const processCode = yield* (yield* ProcessCodes).next
        const created = { load: false }
        return yield* recordAs(processCode, outcome, created).pipe(
          Effect.onExit((exit) => Exit.isSuccess(exit) || !created.load ? Effect.void : LoadOwner.abandon(owner, processCode))
        )
      })

    const recordAs = (processCode: string, outcome: Outcome, created: { load: boolean }) =>
      Effect.gen(function*() {
        const { accepted, errors } = outcome
        yield* loads.create({
          processCode,
          company: outcome.company,
          source: outcome.source,
          received: outcome.received,
          accepted,
          failed: errors.length,
          errors,
          status: initialStatus(accepted, errors.length),
          owner: owner.id,
          batches: publisher.batchesFor(accepted),
          queue: publisher.stream,
          ...(outcome.startedAt === undefined ? {} : { startedAt: outcome.startedAt })
        }).pipe(
          Effect.tapError((error) => Effect.logError("could not record a load", error)),
          Effect.mapError(() => new StorageFailed({ message: "The load could not be recorded: the database is unavailable. Nothing was published; retry later." }))
        )
        created.load = true

        if (accepted > 0) {
          yield* outcome.publish({ processCode, company: outcome.company }).pipe(
            Effect.catch((error) =>
              Effect.gen(function*() {
                yield* Effect.logError("publishing a load failed", error)
                const marked = yield* loads.markFailed(processCode, `publishing to the messaging system failed: ${error.message}`).pipe(
                  Effect.as(true),
                  Effect.catch((markError) => Effect.as(Effect.logError("could not mark the load FAILED", markError), false))
                )
                return yield* new PublishFailed({
                  message: marked
                    ? `The products could not be sent to the messaging system; load ${processCode} is FAILED and nothing was published. Retry later.`
                    // Told the truth: the server settles the load once it can (AbandonedLoads), FAILED unless its batches did land.
                    : `The products could not be sent to the messaging system, and load ${processCode} could not be marked FAILED (the database is unavailable too); ` +
                      `the server settles it once the database is back (GET /v1/loads/${processCode}). Retry later.`
                })
              })
            )
          )
          // Published is what counts; a worker may even have finished already, so a failure here only delays the PROCESSING event.
          yield* loads.markProcessing(processCode).pipe(
            Effect.catch((error) =>
              Effect.logWarning("could not mark the load PROCESSING; the reconciler will", error).pipe(
                Effect.andThen(LoadOwner.abandon(owner, processCode))
              )
            )
          )
        }

        return errors.length === 0
          ? new LoadAccepted({ message: acceptedMessage(accepted, processCode), processCode })
          : new LoadSummary({
            total: outcome.received,
            processing: accepted,
            failed: errors.length,
            errors,
            processCode
          })
      })

    /** Products as JSON.parse made them: validated here, on the event loop. */
    const accept = (request: IntakeRequest) =>
      Effect.suspend(() => {
        const validator = makeLoadValidator(request.company)
        const accepted: Array<Product> = []
        const errors: Array<LoadError> = []
        request.products.forEach((raw, index) =>
          Result.match(validator.validate(raw, index), {
            onFailure: (failure) => errors.push(new LoadError(failure, { disableChecks: true })),
            onSuccess: (product) => accepted.push(product)
          })
        )
        return record({
          company: request.company,
          source: request.source,
          received: request.products.length,
          accepted: accepted.length,
          errors,
          startedAt: request.startedAt,
          publish: (load) => publisher.publish(load, accepted)
        })
      })

    /** Products validated already, the accepted ones as the JSON bytes or the rows that go on the queue. */
    const acceptValidated = (intake: ValidatedIntake) => {
      const { accepted } = intake
      return record({
        company: intake.company,
        source: intake.source,
        received: intake.received,
        accepted: accepted.products.length,
        errors: intake.errors,
        startedAt: intake.startedAt,
        publish: (load) => (accepted._tag === "Rows" ? publisher.publishRows(load, accepted.products) : publisher.publishJson(load, accepted.products))
      })
    }

    return { accept, acceptValidated } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
