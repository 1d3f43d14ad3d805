import { FileLoadSlotsLive } from "@retail/limits"
import { MetricsConfig } from "@retail/metrics"
import { MemoryStreamQueue, metered, PostgresStreamQueue, QueueTracing, RedisStreamQueue, StreamQueue } from "@retail/queue"
import { LoadOwner, UploadConfig, UploadService } from "@retail/service-upload"
import { CapacityRepository, CapacityRetention, Database, LoadOwnership, LoadRepository, LoadRetention, Outbox, ProductRepository, StockRepository } from "@retail/store"
import { Effect, Layer, Option } from "effect"
import { chooseQueue, databaseLocation, describeQueue } from "./QueueChoice.ts"
import { QueueDurabilityCheck } from "./QueueDurabilityCheck.ts"
import { ServerConfig } from "./ServerConfig.ts"

/**
 * The repositories over PostgreSQL when DATABASE_URL is set, else the embedded one; the queue that
 * QueueChoice picks (Redis Streams, tables of that same database, or in-process); the public
 * listener's file load slots (FILE_LOADS_PER_COMPANY; the internal listener has its own, see
 * InternalServer.ts); the threads that validate JSON files, which both listeners share; and this
 * process as the owner of the loads it receives.
 * Released after the listeners, so after requests drained.
 */
export const Infrastructure = Layer.unwrap(
  Effect.gen(function*() {
    const config = yield* ServerConfig
    const database = Database.layer({ url: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize })
    const kind = yield* chooseQueue(config)
    const chosen = kind === "redis"
      ? RedisStreamQueue.layer({ url: Option.getOrElse(config.redisUrl, () => ""), publishTimeoutMs: config.redisPublishTimeoutMs })
      : kind === "postgres"
      ? PostgresStreamQueue.layer({ location: databaseLocation(config) }).pipe(Layer.provide(database))
      : MemoryStreamQueue.layer
    const { enabled: metricsEnabled } = yield* MetricsConfig
    const measured = metricsEnabled ? Layer.effect(StreamQueue, Effect.flatMap(StreamQueue, metered)).pipe(Layer.provide(chosen)) : chosen
    // Traced: a publish is a span whose context its entries carry to their consumers (docs/observability.md).
    const queue = QueueTracing.traced(measured)
    yield* Effect.logInfo(`database: ${databaseLocation(config)}; queue: ${describeQueue(kind, config)}`)
    const repositories = Layer.mergeAll(
      ProductRepository.layer,
      LoadRepository.layer,
      Outbox.layer,
      CapacityRepository.layer,
      StockRepository.layer,
      LoadOwnership.layer,
      LoadRetention.layer,
      CapacityRetention.layer
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
