import { Context, Data, Effect, Layer, type Scope } from "effect"
import { LimitsConfig } from "./LimitsConfig.ts"

/** The company already has as many file loads in flight as it may. */
export class TooManyFileLoads extends Data.TaggedError("TooManyFileLoads")<{
  readonly company: string
  readonly limit: number
  /** The environment variable that sets `limit`, for the caller's message. */
  readonly setting: string
  readonly retryAfterSeconds: number
}> {}

interface SlotRule {
  readonly limit: number
  readonly setting: string
  readonly retryAfterSeconds: number
}

const makeSlots = (rule: SlotRule) => {
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
      if (current >= rule.limit) return Effect.fail(new TooManyFileLoads({ company, ...rule }))
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
}

/**
 * At most N file loads of one company at once, in this process. The default instance applies
 * FILE_LOADS_PER_COMPANY (public listener); `internal` is a separate one applying
 * INTERNAL_FILE_LOADS_PER_COMPANY, so that unauthenticated internal loads cannot take a company's public slots.
 */
export class FileLoadSlots extends Context.Service<FileLoadSlots>()("@retail/limits/FileLoadSlots", {
  make: Effect.map(LimitsConfig, (settings) =>
    makeSlots({ limit: settings.fileLoadsPerCompany, setting: "FILE_LOADS_PER_COMPANY", retryAfterSeconds: settings.fileLoadRetryAfterSeconds }))
}) {
  static readonly layer = Layer.effect(FileLoadSlots, FileLoadSlots.make)

  static readonly internal = Layer.effect(
    FileLoadSlots,
    Effect.map(LimitsConfig, (settings) =>
      FileLoadSlots.of(makeSlots({
        limit: settings.internalFileLoadsPerCompany,
        setting: "INTERNAL_FILE_LOADS_PER_COMPANY",
        retryAfterSeconds: settings.fileLoadRetryAfterSeconds
      })))
  )
}
