import { Context, Deferred, Effect, Layer } from "effect"

/**
 * Counts the HTTP requests being handled, so that shutdown can wait for their fibers to end
 * (including what they do when interrupted) before the database and the queue are closed.
 * A plain counter: it is touched twice by every request, and only shutdown waits on it.
 */
export class InFlightRequests extends Context.Service<InFlightRequests, {
  readonly track: <A, E, R>(handle: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Completes once no request is being handled. */
  readonly drained: Effect.Effect<void>
  /** Requests being handled now. */
  readonly count: Effect.Effect<number>
}>()("@retail/server/InFlightRequests") {
  static readonly layer = Layer.sync(InFlightRequests, () => {
    let count = 0
    /** Completed when the count next reaches zero; made by the first `drained` that has to wait. */
    let idle: Deferred.Deferred<void> | undefined
    const done = Effect.suspend(() => {
      count--
      if (count > 0 || idle === undefined) return Effect.void
      const waiting = idle
      idle = undefined
      return Deferred.succeed(waiting, undefined)
    })
    return InFlightRequests.of({
      track: <A, E, R>(handle: Effect.Effect<A, E, R>) =>
        Effect.acquireUseRelease(Effect.sync(() => count++), () => handle, () => done),
      count: Effect.sync(() => count),
      drained: Effect.suspend(() => {
        if (count === 0) return Effect.void
        if (idle !== undefined) return Deferred.await(idle)
        return Effect.flatMap(Deferred.make<void>(), (waiting) => {
          idle = waiting
          // The last request may have ended while the deferred was made.
          return count === 0 ? Effect.void : Deferred.await(waiting)
        })
      })
    })
  })
}

/** HttpRouter.serve middleware counting the requests of a listener in InFlightRequests. */
export const trackInFlight = <A, E, R>(app: Effect.Effect<A, E, R>) =>
  Effect.flatMap(InFlightRequests, (inFlight) => inFlight.track(app))
