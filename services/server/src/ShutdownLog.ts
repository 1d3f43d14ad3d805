import { Clock, Effect } from "effect"
import type { InFlightRequests } from "./InFlightRequests.ts"

/**
 * Shutdown says what it waited for: the listeners are closed, and the requests still being handled
 * then (cut off or finishing) are drained, or are not within the bound. The queue's part is told by
 * the workers (services/upload/src/persist/BatchWorkers.ts).
 */
export const logDrain = (inFlight: InFlightRequests["Service"], drain: Effect.Effect<void>): Effect.Effect<void> =>
  Effect.gen(function*() {
    const waiting = yield* inFlight.count
    const start = yield* Clock.currentTimeMillis
    yield* Effect.logInfo(`shutdown: listeners closed; ${waiting} requests still being handled`).pipe(
      Effect.annotateLogs({ event: "shutdown.requests", inFlight: waiting })
    )
    yield* drain
    const left = yield* inFlight.count
    const tookMs = (yield* Clock.currentTimeMillis) - start
    yield* left === 0
      ? Effect.logInfo(`shutdown: requests drained (${waiting} in ${tookMs} ms)`)
      : Effect.logWarning(`shutdown: ${left} of ${waiting} requests still running after ${tookMs} ms; going on without them`)
  })
