import { Clock, Deferred, Effect, HashMap, Option, SynchronizedRef } from "effect"

export interface Wakeups {
  /** Wakes this process's readers waiting on `stream`. */
  readonly notify: (stream: string) => Effect.Effect<void>
  /**
   * Repeats `attempt` until it finds something or `blockMs` has passed: at once after a `notify`
   * of this process, else every `pollMs` (appends by other processes are only seen by looking).
   */
  readonly awaitNonEmpty: <A, E>(
    stream: string,
    blockMs: number,
    attempt: Effect.Effect<ReadonlyArray<A>, E>
  ) => Effect.Effect<ReadonlyArray<A>, E>
}

export const make = (pollMs: number): Effect.Effect<Wakeups> =>
  Effect.gen(function*() {
    // One Deferred per stream that somebody waits on, completed (and dropped) by the next notify.
    const signals = yield* SynchronizedRef.make(HashMap.empty<string, Deferred.Deferred<void>>())

    const signalOf = (stream: string) =>
      SynchronizedRef.modifyEffect(signals, (byStream) =>
        Option.match(HashMap.get(byStream, stream), {
          onSome: (signal) => Effect.succeed([signal, byStream] as const),
          onNone: () => Effect.map(Deferred.make<void>(), (signal) => [signal, HashMap.set(byStream, stream, signal)] as const)
        }))

    const notify = (stream: string) =>
      SynchronizedRef.modify(signals, (byStream) => [HashMap.get(byStream, stream), HashMap.remove(byStream, stream)] as const).pipe(
        Effect.flatMap(Option.match({ onNone: () => Effect.void, onSome: (signal) => Deferred.succeed(signal, undefined) }))
      )

    // The signal is taken before looking, so a notify between the look and the wait still wakes us.
    const awaitNonEmpty = <A, E>(stream: string, blockMs: number, attempt: Effect.Effect<ReadonlyArray<A>, E>) =>
      Effect.gen(function*() {
        const deadline = (yield* Clock.currentTimeMillis) + blockMs
        while (true) {
          const signal = yield* signalOf(stream)
          const found = yield* attempt
          if (found.length > 0) return found
          const remaining = deadline - (yield* Clock.currentTimeMillis)
          if (remaining <= 0) return found
          yield* Effect.timeoutOption(Deferred.await(signal), Math.min(remaining, pollMs))
        }
      })

    return { notify, awaitNonEmpty }
  })
