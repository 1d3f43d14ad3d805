import { Database } from "@retail/store"
import { Data, Effect, Option } from "effect"

export type QueueKind = "memory" | "postgres" | "redis"

export class InvalidQueueChoice extends Data.TaggedError("InvalidQueueChoice")<{ readonly message: string }> {}

export interface QueueSettings {
  readonly queue: Option.Option<QueueKind>
  readonly redisUrl: Option.Option<string>
  readonly databaseUrl: Option.Option<string>
  readonly dataDir: string
}

/**
 * QUEUE when set; else Redis when REDIS_URL is set, else a table of the database when it keeps its
 * data (a server, or the embedded one on disk), else (DATA_DIR=memory://) the in-process queue:
 * a durable queue in a database that is not is no gain.
 */
export const chooseQueue = (settings: QueueSettings): Effect.Effect<QueueKind, InvalidQueueChoice> =>
  Option.match(settings.queue, {
    onSome: (kind) =>
      kind === "redis" && Option.isNone(settings.redisUrl)
        ? Effect.fail(new InvalidQueueChoice({ message: "QUEUE=redis needs REDIS_URL" }))
        : Effect.succeed(kind),
    onNone: () =>
      Effect.succeed(
        Option.isSome(settings.redisUrl)
          ? "redis"
          : Option.isNone(settings.databaseUrl) && settings.dataDir === Database.IN_MEMORY
          ? "memory"
          : "postgres"
      )
  })

/** Where the queue's entries live, for the start-up log. */
export const describeQueue = (kind: QueueKind, settings: QueueSettings): string =>
  kind === "redis"
    ? "Redis Streams (REDIS_URL)"
    : kind === "memory"
    ? "in-process"
    : `tables of the ${databaseLocation(settings)}`

export const databaseLocation = (settings: QueueSettings): string =>
  Option.isSome(settings.databaseUrl)
    ? "PostgreSQL server of DATABASE_URL"
    : settings.dataDir === Database.IN_MEMORY
    ? "embedded PGlite in memory"
    : `embedded PostgreSQL server in ${settings.dataDir}`
