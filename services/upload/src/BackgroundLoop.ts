import { Cause, type Duration, Effect, Schedule, type Scope } from "effect"

/**
 * `round` in a fiber of the scope, run again `every` after each round ends (the shape of Sharding's
 * self-restarting loops): a failed round is logged with `failed` and its cause, and the next one
 * tries again; only an interruption (the scope closing) ends the loop.
 */
export const repeatInBackground = <R>(
  round: Effect.Effect<unknown, unknown, R>,
  every: Duration.Input,
  failed: string
): Effect.Effect<void, never, R | Scope.Scope> =>
  round.pipe(
    Effect.catchCause((cause) => (Cause.hasInterruptsOnly(cause) ? Effect.interrupt : Effect.logWarning(failed, cause))),
    Effect.repeat(Schedule.spaced(every)),
    Effect.forkScoped,
    Effect.asVoid
  )
