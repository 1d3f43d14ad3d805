import { Data, Effect, type Scope } from "effect"
import { LimitsConfig } from "./LimitsConfig.ts"

/** The company already has as many file loads in flight as it may. */
export class TooManyFileLoads extends Data.TaggedError("TooManyFileLoads")<{
  readonly company: string
  readonly limit: number
  readonly retryAfterSeconds: number
}> {}

/** At most FILE_LOADS_PER_COMPANY file loads of one company at once, in this process. */
export class FileLoadSlots extends Effect.Service<FileLoadSlots>()("@retail/limits/FileLoadSlots", {
  effect: Effect.gen(function*() {
    const settings = yield* LimitsConfig
    const inFlight = new Map<string, number>()
    const release = (company: string) =>
      Effect.sync(() => {
        const left = (inFlight.get(company) ?? 1) - 1
        if (left <= 0) inFlight.delete(company)
        else inFlight.set(company, left)
      })
    const acquire = (company: string) =>
      Effect.suspend(() => {
        const current = inFlight.get(company) ?? 0
        if (current >= settings.fileLoadsPerCompany) {
          return Effect.fail(
            new TooManyFileLoads({ company, limit: settings.fileLoadsPerCompany, retryAfterSeconds: settings.fileLoadRetryAfterSeconds })
          )
        }
        inFlight.set(company, current + 1)
        return Effect.void
      })

    /** Runs a company's file load in one of its slots, freed when the load ends however it ends. */
    const withSlot = (company: string) => <A, E, R>(load: Effect.Effect<A, E, R>): Effect.Effect<A, E | TooManyFileLoads, R> =>
      Effect.acquireUseRelease(acquire(company), () => load, () => release(company))
    /** Takes a slot of the company until the scope closes: for a load that learns its company as it reads. */
    const slotIn = (company: string): Effect.Effect<void, TooManyFileLoads, Scope.Scope> =>
      Effect.acquireRelease(acquire(company), () => release(company))
    return { withSlot, slotIn } as const
  })
}) {}
