import { Cause, Duration, Effect, Layer } from "effect"
import { CapacityConfig } from "./CapacityConfig.ts"
import { CapacityNetwork } from "./CapacityNetwork.ts"

/**
 * Bounds how stale this process can be when a capacity event is lost (the process that committed
 * a consumption died before publishing it): every CAPACITY_RECONCILE_INTERVAL_MS the actors
 * re-read usage from Postgres. Never selling what is gone does not depend on it (the conditional
 * UPDATE does that); answers offering dates that are already full do.
 */
export const UsageReconciler = Layer.effectDiscard(
  Effect.gen(function*() {
    const { reconcileIntervalMs } = yield* CapacityConfig
    if (reconcileIntervalMs === 0) return
    const network = yield* CapacityNetwork
    const pass = network.reconcile.pipe(
      Effect.catchCause((cause) =>
        Cause.hasInterruptsOnly(cause) ? Effect.interrupt : Effect.logError("capacity: reconciling usage with Postgres failed; next pass retries", cause)
      )
    )
    yield* Effect.sleep(Duration.millis(reconcileIntervalMs)).pipe(
      Effect.andThen(pass),
      Effect.forever,
      Effect.forkScoped
    )
  })
)
