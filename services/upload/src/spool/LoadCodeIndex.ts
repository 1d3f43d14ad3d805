import { StorageFailed } from "@retail/api"
import type { FirstOccurrenceIndex } from "@retail/domain"
import { DEFAULT_CODES_IN_MEMORY, openSpillingCodeIndex } from "@retail/ingest"
import { Effect, type Scope } from "effect"

/**
 * A file load's duplicate-productCode index (`SpillingCodeIndex`, spilled next to the spool), open
 * for the scope. A disk error stops its answers and is kept: `check` fails the load with it, so
 * call it after each chunk of products and before anything is published.
 */
export interface LoadCodeIndex extends FirstOccurrenceIndex {
  readonly check: Effect.Effect<void, StorageFailed>
  readonly size: () => number
  /** The run files written so far (and not yet removed). */
  readonly runs: () => ReadonlyArray<string>
}

const indexFailed = (cause: unknown) =>
  new StorageFailed({
    message: `The upload could not be checked for repeated productCodes in temporary storage (${cause instanceof Error ? cause.message : String(cause)}); nothing was published. Retry later.`
  })

export const makeSpillingCodeIndex = (dir: string, codesInMemory = DEFAULT_CODES_IN_MEMORY): Effect.Effect<LoadCodeIndex, never, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(Effect.sync(() => openSpillingCodeIndex(dir, codesInMemory)), (index) => Effect.sync(index.close)),
    (index) => ({
      firstOrAdd: index.firstOrAdd,
      check: Effect.suspend(() => {
        const failure = index.failure()
        return failure === undefined ? Effect.void : Effect.fail(indexFailed(failure.cause))
      }),
      size: index.size,
      runs: index.runs
    })
  )
