import { Clock, Context, Effect, Layer } from "effect"
import { UploadConfig } from "../UploadConfig.ts"

/**
 * Loads of this process whose request ended without settling them: publishing failed and so did
 * marking the load FAILED (the database was down), the client went away mid-publish, a defect, or
 * the load was published but could not be marked PROCESSING. The owner is alive, so the reconciler
 * would wait for it for ever; for these it judges the load as it judges a dead owner's, once as long
 * has passed as a dead owner is given (LOAD_LEASE_MS): a publish cut off on this side may still land.
 */
export class AbandonedLoads {
  readonly #since = new Map<string, number>()
  /** `at`: epoch ms. Only a load that was created is abandoned: the set holds loads the database has. */
  add(processCode: string, at: number): void {
    if (!this.#since.has(processCode)) this.#since.set(processCode, at)
  }
  /** When the load was abandoned (epoch ms), if it was. */
  since(processCode: string): number | undefined {
    return this.#since.get(processCode)
  }
  /** The codes abandoned so far: those of them not unfinished at a later look are settled, and forgotten. */
  snapshot(): ReadonlyArray<string> {
    return Array.from(this.#since.keys())
  }
  forget(processCode: string): void {
    this.#since.delete(processCode)
  }
}

/**
 * This server process as the owner of the loads it receives: a fresh id per start, so a restarted
 * process never passes for the one that died (whose loads the reconciler takes over).
 */
export class LoadOwner extends Context.Service<LoadOwner, {
  readonly id: string
  /** For people: the process's consumer name. */
  readonly name: string
  readonly abandoned: AbandonedLoads
}>()("@retail/upload/LoadOwner") {
  /** Records the load as abandoned now. */
  static readonly abandon = (owner: Context.Service.Shape<typeof LoadOwner>, processCode: string) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => owner.abandoned.add(processCode, now)))

  static readonly layer = Layer.effect(
    LoadOwner,
    Effect.map(UploadConfig, (config) => ({ id: crypto.randomUUID(), name: config.consumerPrefix, abandoned: new AbandonedLoads() }))
  )

  static readonly test = (id: string = crypto.randomUUID()) => Layer.succeed(LoadOwner, { id, name: "test", abandoned: new AbandonedLoads() })
}
