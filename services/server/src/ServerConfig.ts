import { Config, Schema } from "effect"

/** An integer setting that must pass `valid`; `message` says what it must be. */
const checkedInt = (name: string, message: string, valid: (n: number) => boolean) =>
  Config.schema(Schema.Int.check(Schema.makeFilter(valid, { message })), name)

/** Process-level settings (documented in README.md). */
export const ServerConfig = Config.all({
  port: checkedInt("PORT", "PORT must be 0-65535 (0: any free port)", (p) => p >= 0 && p <= 65535).pipe(
    Config.withDefault(8080)
  ),
  host: Config.String("HOST").pipe(Config.withDefault("0.0.0.0")),
  internalPort: checkedInt("INTERNAL_PORT", "INTERNAL_PORT must be 0-65535 (0: any free port)", (p) => p >= 0 && p <= 65535).pipe(
    Config.withDefault(8081)
  ),
  internalHost: Config.String("INTERNAL_HOST").pipe(Config.withDefault("127.0.0.1")),
  databaseUrl: Config.option(Config.String("DATABASE_URL")),
  dataDir: Config.String("DATA_DIR").pipe(Config.withDefault("./.data/postgres")),
  databasePoolSize: Config.Int("DATABASE_POOL_SIZE").pipe(Config.withDefault(10)),
  redisUrl: Config.option(Config.String("REDIS_URL")),
  /** Unset: chosen from the other settings (see QueueChoice.ts). */
  queue: Config.option(Config.Literals(["memory", "postgres", "redis"], "QUEUE")),
  redisPublishTimeoutMs: Config.Int("REDIS_PUBLISH_TIMEOUT_MS").pipe(Config.withDefault(5000)),
  runWorkers: Config.Boolean("RUN_WORKERS").pipe(Config.withDefault(true)),
  production: Config.String("NODE_ENV").pipe(Config.map((env) => env === "production"), Config.withDefault(false)),
  allowVolatileQueue: Config.Boolean("ALLOW_VOLATILE_QUEUE").pipe(Config.withDefault(false)),
  shutdownGraceMs: checkedInt("SHUTDOWN_GRACE_MS", "SHUTDOWN_GRACE_MS must be 0 or more", (ms) => ms >= 0).pipe(
    Config.withDefault(20_000)
  ),
  uploadIdleTimeoutMs: checkedInt("UPLOAD_IDLE_TIMEOUT_MS", "UPLOAD_IDLE_TIMEOUT_MS must be 0 or more (0: no watchdog)", (ms) => ms >= 0)
    .pipe(Config.withDefault(30_000)),
  uploadMinBytesPerSecond: checkedInt(
    "UPLOAD_MIN_BYTES_PER_SECOND",
    "UPLOAD_MIN_BYTES_PER_SECOND must be 0 or more (0: no minimum)",
    (n) => n >= 0
  ).pipe(Config.withDefault(1024)),
  requestMaxBytes: checkedInt("REQUEST_MAX_BYTES", "REQUEST_MAX_BYTES must be a positive integer", (n) => n > 0).pipe(
    Config.withDefault(16 * 1024 * 1024)
  )
})
