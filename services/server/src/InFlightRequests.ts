import type { HttpApp } from "@effect/platform"
import { Effect, Stream, SubscriptionRef } from "effect"

/**
 * Counts the HTTP requests being handled, so that shutdown can wait for their fibers to end
 * (including what they do when interrupted) before the database and the queue are closed.
 */
export class InFlightRequests extends Effect.Service<InFlightRequests>()("@retail/server/InFlightRequests", {
  effect: Effect.gen(function*() {
    const count = yield* SubscriptionRef.make(0)
    return {
      track: <A, E, R>(handle: Effect.Effect<A, E, R>) =>
        Effect.acquireUseRelease(
          SubscriptionRef.update(count, (n) => n + 1),
          () => handle,
          () => SubscriptionRef.update(count, (n) => n - 1)
        ),
      /** Completes once no request is being handled. */
      drained: count.changes.pipe(Stream.takeUntil((n) => n === 0), Stream.runDrain)
    } as const
  })
}) {}

/** HttpApiBuilder.serve middleware counting the requests of a listener in InFlightRequests. */
export const trackInFlight = <E, R>(app: HttpApp.Default<E, R>) =>
  Effect.flatMap(InFlightRequests, (inFlight) => inFlight.track(app))
