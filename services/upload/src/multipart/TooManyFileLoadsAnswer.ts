import { tooManyRequests } from "@retail/api"
import { TooManyFileLoads } from "@retail/limits"
import { Effect } from "effect"

/** A company at its FILE_LOADS_PER_COMPANY (or INTERNAL_FILE_LOADS_PER_COMPANY) limit: 429 with Retry-After. */
export const answerTooManyFileLoads = <A, E, R>(load: Effect.Effect<A, E | TooManyFileLoads, R>) =>
  Effect.catchIf(load, (error): error is TooManyFileLoads => error instanceof TooManyFileLoads, (busy) =>
    tooManyRequests(
      busy.retryAfterSeconds,
      `Company ${busy.company} already has ${busy.limit} file loads in progress (${busy.setting}); retry after ${busy.retryAfterSeconds} s`
    ))
