import { Duration, Effect, Schedule } from "effect"

const CALM = Duration.toMillis("1 minute")

/**
 * Starts the schedule over once `afterMillis` have passed since it (re)started, as Effect 3's
 * `Schedule.resetAfter` did (Effect 4 has none): the first step sets the start, and a step that
 * comes that long after it is taken by a fresh schedule, whose start is then.
 */
const resetAfter = <Output, Input>(self: Schedule.Schedule<Output, Input>, afterMillis: number) =>
  Schedule.fromStep(Effect.map(Schedule.toStep(self), (first) => {
    let step = first
    let start: number | undefined
    return (now: number, input: Input) => {
      if (start === undefined) start = now
      else if (now - start >= afterMillis) {
        start = now
        return Effect.flatMap(Schedule.toStep(self), (fresh) => {
          step = fresh
          return fresh(now, input)
        })
      }
      return step(now, input)
    }
  }))

/** Restarts after `first` at first, doubling, then at most every 2 s while it keeps failing; calm for a minute resets it. */
export const restarts = (first: Duration.Input): Schedule.Schedule<Duration.Duration> =>
  resetAfter(Schedule.min([Schedule.exponential(first), Schedule.spaced("2 seconds")]), CALM)
