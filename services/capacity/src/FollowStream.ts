import type { ReadOptions, StreamEntry, StreamQueue } from "@retail/queue"
import { Effect, type Scope } from "effect"
import { restarts } from "./Restarts.ts"

export interface StreamFollowing {
  readonly queue: typeof StreamQueue.Service
  readonly stream: string
  /** Names the stream in logs: "capacity events", "stock events". */
  readonly label: string
  readonly read: ReadOptions
  /** This process's own entries: already applied here, passed over unread. */
  readonly isOwn: (payload: string) => boolean
  /** Decodes and applies one entry of another process; an undecodable one is logged and passed over by the caller. */
  readonly apply: (entry: StreamEntry) => Effect.Effect<void>
  /** Rebuild from Postgres: after the follower lost its place (Redis unreachable for a while). */
  readonly resync: Effect.Effect<void, unknown>
  /** After each read, with the number of entries it found (a pause to gather the next ones, say). */
  readonly afterRead?: (found: number) => Effect.Effect<void>
}

const followRestarts = restarts("50 millis")

/**
 * Applies every entry after `from`, in order, for the life of the scope. A failure (Redis
 * unreachable) is logged; the follower restarts on a schedule from the stream's end after a resync,
 * so whatever it missed comes from Postgres.
 */
export const followStream = (from: string, following: StreamFollowing): Effect.Effect<void, never, Scope.Scope> => {
  const { queue, stream, label, read, isOwn, apply, resync, afterRead } = following
  let position = from
  let lost = false
  // Suspended: each read starts after the last entry applied, not where following began.
  const step = Effect.flatMap(Effect.suspend(() => queue.readAfter(stream, position, read)), (entries) =>
    Effect.forEach(entries, (entry) =>
      (isOwn(entry.payload) ? Effect.void : apply(entry)).pipe(Effect.map(() => {
        position = entry.id
      })), { discard: true }).pipe(
        Effect.andThen(afterRead === undefined ? Effect.void : afterRead(entries.length))
      ))
  const cycle = Effect.gen(function*() {
    if (lost) {
      position = yield* queue.lastId(stream)
      yield* resync
      lost = false
      yield* Effect.logInfo(`${label}: resynchronised from Postgres, following ${stream} from ${position}`)
    }
    return yield* Effect.forever(step)
  })
  return cycle.pipe(
    Effect.catchCause((cause) => {
      lost = true
      return Effect.logError(`${label}: following ${stream} failed; will resync and follow again`, cause)
    }),
    Effect.repeat(followRestarts),
    Effect.forkScoped,
    Effect.asVoid
  )
}
