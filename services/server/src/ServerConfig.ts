import { Config } from "effect"

/** Process-level settings (documented in README.md). */
export const ServerConfig = Config.all({
  port: Config.integer("PORT").pipe(
    Config.validate({ message: "PORT must be 0-65535 (0: any free port)", validation: (p) => p >= 0 && p <= 65535 }),
    Config.withDefault(8080)
  ),
  host: Config.string("HOST").pipe(Config.withDefault("0.0.0.0")),
  internalPort: Config.integer("INTERNAL_PORT").pipe(
    Config.validate({ message: "INTERNAL_PORT must be 0-65535 (0: any free port)", validation: (p) => p >= 0 && p <= 65535 }),
    Config.withDefault(8081)
  ),
  internalHost: Config.string("INTERNAL_HOST").pipe(Config.withDefault("127.0.0.1")),
  databaseUrl: Config.option(Config.string("DATABASE_URL")),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault("./.data/postgres")),
  databasePoolSize: Config.integer("DATABASE_POOL_SIZE").pipe(Config.withDefault(10)),
  redisUrl: Config.option(Config.string("REDIS_URL")),
  /** Unset: chosen from the other settings (see QueueChoice.ts). */
  queue: Config.option(Config.literal("memory", "postgres", "redis")("QUEUE")),
  redisPublishTimeoutMs: Config.integer("REDIS_PUBLISH_TIMEOUT_MS").pipe(Config.withDefault(5000)),
  runWorkers: Config.boolean("RUN_WORKERS").pipe(Config.withDefault(true)),
  production: Config.string("NODE_ENV").pipe(Config.map((env) => env === "production"), Config.withDefault(false)),
  allowVolatileQueue: Config.boolean("ALLOW_VOLATILE_QUEUE").pipe(Config.withDefault(false)),
  shutdownGraceMs: Config.integer("SHUTDOWN_GRACE_MS").pipe(
    Config.validate({ message: "SHUTDOWN_GRACE_MS must be 0 or more", validation: (ms) => ms >= 0 }),
    Config.withDefault(20_000)
  ),
  uploadIdleTimeoutMs: Config.integer("UPLOAD_IDLE_TIMEOUT_MS").pipe(
    Config.validate({ message: "UPLOAD_IDLE_TIMEOUT_MS must be 0 or more (0: no watchdog)", validation: (ms) => ms >= 0 }),
    Config.withDefault(30_000)
  ),
  uploadMinBytesPerSecond: Config.integer("UPLOAD_MIN_BYTES_PER_SECOND").pipe(
    Config.validate({ message: "UPLOAD_MIN_BYTES_PER_SECOND must be 0 or more (0: no minimum)", validation: (n) => n >= 0 }),
    Config.withDefault(1024)
  ),
  requestMaxBytes: Config.integer("REQUEST_MAX_BYTES").pipe(
    Config.validate({ message: "REQUEST_MAX_BYTES must be a positive integer", validation: (n) => n > 0 }),
    Config.withDefault(16 * 1024 * 1024)
  )
})
