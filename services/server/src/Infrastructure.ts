import { FileLoadSlotsLive } from "@retail/limits"
import { MemoryStreamQueue, RedisStreamQueue } from "@retail/queue"
import { LoadOwner, UploadConfig, UploadService } from "@retail/service-upload"
import { CapacityRepository, Database, LoadOwnership, LoadRepository, Outbox, ProductRepository } from "@retail/store"
import { Effect, Layer, Option } from "effect"
import { QueueDurabilityCheck } from "./QueueDurabilityCheck.ts"
import { ServerConfig } from "./ServerConfig.ts"

/**
 * The repositories over PostgreSQL when DATABASE_URL is set, else the embedded one; Redis Streams
 * when REDIS_URL is set, else in-process; the public listener's file load slots (FILE_LOADS_PER_COMPANY;
 * the internal listener has its own, see InternalServer.ts); and the threads that validate JSON
 * files, which both listeners share; and this process as the owner of the loads it receives.
 * Released after the listeners, so after requests drained.
 */
export const Infrastructure = Layer.unwrapEffect(
  Effect.gen(function*() {
    const config = yield* ServerConfig
    const database = Database.layer({ url: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize })
    const queue = Option.match(config.redisUrl, {
      onNone: () => MemoryStreamQueue.layer,
      onSome: (url) => RedisStreamQueue.layer({ url, publishTimeoutMs: config.redisPublishTimeoutMs })
    })
    yield* Effect.logInfo(
      `database: ${
          Option.isSome(config.databaseUrl)
            ? "PostgreSQL (DATABASE_URL)"
            : config.dataDir === Database.IN_MEMORY
            ? "embedded PGlite in memory"
            : `embedded PostgreSQL server, data in ${config.dataDir}`
        }; ` +
        `queue: ${Option.isSome(config.redisUrl) ? "Redis Streams (REDIS_URL)" : "in-process"}`
    )
    const repositories = Layer.mergeAll(
      ProductRepository.Default,
      LoadRepository.Default,
      Outbox.Default,
      CapacityRepository.Default,
      LoadOwnership.Default
    )
    return Layer.mergeAll(
      Layer.provideMerge(repositories, database),
      Layer.provideMerge(QueueDurabilityCheck, queue),
      FileLoadSlotsLive,
      UploadService.jsonValidationPool,
      LoadOwner.layer.pipe(Layer.provide(UploadConfig.layer))
    )
  })
)
