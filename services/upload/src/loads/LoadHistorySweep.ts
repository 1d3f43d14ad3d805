import { UploadMetrics } from "@retail/metrics"
import { LoadRetention } from "@retail/store"
import { Context, Duration, Effect, Layer } from "effect"
import { repeatInBackground } from "../BackgroundLoop.ts"
import { UploadConfig } from "../UploadConfig.ts"

const DAY_MS = 86_400_000
/**
 * Per transaction: at most this many loads, holding about this many rows between them (a refused
 * SKU, a batch and an event are a row each), so that each stays short however large the history.
 */
const LOADS_PER_TRANSACTION = 200
const ROWS_PER_TRANSACTION = 50_000
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

    /** Every load due, a transaction at a time, each counted as it commits; how many were forgotten. 0 when retention is off. */
    const sweep = Effect.gen(function*() {
      if (loadRetentionDays === 0) return 0
      let forgotten = 0
      for (;;) {
        const now = yield* retention.forgetFinished(loadRetentionDays * DAY_MS, LOADS_PER_TRANSACTION, ROWS_PER_TRANSACTION)
        if (now === 0) break
        forgotten += now
        UploadMetrics.loadsForgotten.add({}, now)
      }
      if (forgotten > 0) yield* Effect.logInfo(`forgot ${forgotten} loads that finished more than ${loadRetentionDays} days ago (LOAD_RETENTION_DAYS)`)
      return forgotten
    })

    if (loadRetentionDays > 0) {
      yield* repeatInBackground(
        sweep,
        SWEEP_EVERY,
        "forgetting old loads failed (those forgotten before are counted in upload_loads_forgotten_total); trying again at the next sweep"
      )
    }

    return { sweep } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
