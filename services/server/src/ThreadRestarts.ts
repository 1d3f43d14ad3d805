import { Clock, Duration, Effect } from "effect"

/** The first wait before a thread that died is started again, and the wait after one that had run steadily. */
export const FIRST_RESTART = Duration.seconds(1)
/** The longest wait: a thread that dies at every start is tried once a minute, not once a second. */
export const LONGEST_RESTART = Duration.minutes(1)
/** A thread that ran this long before dying had worked: its next restart waits FIRST_RESTART again. */
export const STEADY_RUN = Duration.seconds(30)

/**
 * How long to wait before starting a thread again, after it ran for `ran` and the wait before that
 * start was `previous` (zero for the first start): doubled while it keeps dying soon after starting
 * (a fault at start-up would otherwise fill the log every second), back to the first after a
 * steady run.
 */
export const nextRestartDelay = (previous: Duration.Duration, ran: Duration.Duration): Duration.Duration =>
  Duration.isGreaterThanOrEqualTo(ran, STEADY_RUN)
    ? FIRST_RESTART
    : Duration.max(FIRST_RESTART, Duration.min(Duration.times(previous, 2), LONGEST_RESTART))

/** How one run of a supervised thread ended: its exit code, and the uncaught error it died of, if any. */
export interface ThreadExit {
  readonly code: number
  readonly error: unknown
}

/**
 * Runs `runOnce` (a thread, until it exits) again and again, forever: each exit is logged with how
 * long `what` ran, and the next start waits `nextRestartDelay`.
 */
export const restartForever = (what: string, runOnce: Effect.Effect<ThreadExit>): Effect.Effect<never> => {
  const supervise = (waited: Duration.Duration): Effect.Effect<never> =>
    Effect.gen(function*() {
      const started = yield* Clock.currentTimeMillis
      const { code, error } = yield* runOnce
      const ran = Duration.millis((yield* Clock.currentTimeMillis) - started)
      const wait = nextRestartDelay(waited, ran)
      yield* Effect.logError(
        `${what} exited (code ${code}) after ${Duration.format(ran)}; starting it again in ${Duration.format(wait)}`,
        ...(error === undefined ? [] : [error])
      )
      yield* Effect.sleep(wait)
      return yield* supervise(wait)
    })
  return supervise(Duration.zero)
}
