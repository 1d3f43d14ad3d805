import { UploadMetrics } from "@retail/metrics"
import { LoadRetention } from "@retail/store"
import { Cause, Context, Duration, Effect, Layer, Schedule } from "effect"
import { UploadConfig } from "../UploadConfig.ts"

const DAY_MS = 86_400_000
/** Loads forgotten per transaction: a short one, however many loads are due. */
const LOADS_PER_STATEMENT = 200
/** How often each process looks for loads due; finished loads become due by the day, so an hour is prompt. */
const SWEEP_EVERY = Duration.hours(1)

/**
 * Forgets the record of loads that finished more than LOAD_RETENTION_DAYS ago (LoadRetention in
 * packages/store), at start and then every hour, in every process: sweeps racing over the same loads
 * skip each other's. A failed sweep is logged and tried again at the next; nothing it missed is lost,
 * only kept longer.
 */
export class LoadHistorySweep extends Context.Service<LoadHistorySweep>()("@retail/upload/LoadHistorySweep", {
  make: Effect.gen(function*() {
    const retention = yield* LoadRetention
    const { loadRetentionDays } = yield* UploadConfig

    /** Every load due, a statement at a time; how many were forgotten. */
    const sweep = Effect.gen(function*() {
      if (loadRetentionDays === 0) return 0
      let forgotten = 0
      for (;;) {
        const now = yield* retention.forgetFinished(loadRetentionDays * DAY_MS, LOADS_PER_STATEMENT)
        forgotten += now
        if (now < LOADS_PER_STATEMENT) return forgotten
      }
    }).pipe(
      Effect.tap((forgotten) =>
        forgotten === 0 ? Effect.void : Effect.sync(() => UploadMetrics.loadsForgotten.add({}, forgotten)).pipe(
          Effect.andThen(Effect.logInfo(`forgot ${forgotten} loads that finished more than ${loadRetentionDays} days ago (LOAD_RETENTION_DAYS)`))
        )
      )
    )

    if (loadRetentionDays > 0) {
      yield* sweep.pipe(
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause) ? Effect.interrupt : Effect.logWarning("forgetting old loads failed; trying again at the next sweep", cause)
        ),
        Effect.repeat(Schedule.spaced(SWEEP_EVERY)),
        Effect.forkScoped
      )
    }

    return { sweep } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
