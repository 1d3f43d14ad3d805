import { StreamQueue, type QueueDurability } from "@retail/queue"
import { Data, Effect, Layer, Option, Result, Schedule } from "effect"
import { ServerConfig } from "./ServerConfig.ts"

export class UnsafeConfiguration extends Data.TaggedError("UnsafeConfiguration")<{ readonly message: string }> {}

const report = (durability: QueueDurability) =>
  durability.durable === true ? Effect.logInfo(`queue durability: ${durability.description}`) : Effect.logWarning(`queue durability: ${durability.description}`)

/**
 * Says at start-up what the queue keeps across a restart, and refuses NODE_ENV=production on a queue
 * that loses accepted products on a restart (the in-process one, or Redis without its append-only
 * file) unless ALLOW_VOLATILE_QUEUE=true. Redis not reachable yet is checked again until it is.
 */
export const QueueDurabilityCheck = Layer.effectDiscard(
  Effect.gen(function*() {
    const config = yield* ServerConfig
    const queue = yield* StreamQueue
    const refuse = (durability: QueueDurability) =>
      config.production && durability.durable === false && !config.allowVolatileQueue
        ? Effect.fail(new UnsafeConfiguration({
          message: `NODE_ENV=production on a queue that loses accepted products when it restarts (${durability.description}); ` +
            `${Option.isNone(config.redisUrl) ? "unset QUEUE=memory (the default keeps the queue in the database), or set REDIS_URL to a Redis with appendonly yes" : "turn on appendonly in Redis"}, ` +
            "or set ALLOW_VOLATILE_QUEUE=true to accept the loss"
        }))
        : Effect.void
    const checked = yield* Effect.result(queue.durability)
    if (Result.isSuccess(checked)) {
      yield* report(checked.success)
      return yield* refuse(checked.success)
    }
    yield* Effect.logWarning(`queue durability not checked yet (${checked.failure.message}); checking again until the queue answers`)
    yield* queue.durability.pipe(
      Effect.retry(Schedule.spaced("10 seconds")),
      Effect.flatMap(report),
      Effect.forkScoped
    )
  })
)
