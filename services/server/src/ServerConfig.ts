import { integer, positiveInteger } from "@retail/config"
import { isServerList } from "@retail/api"
import { Config, Schema } from "effect"

/** OPENAPI_SERVERS: the `servers` of the public OpenAPI document, as a comma-separated list of URLs. */
const openapiServers = Config.option(Config.schema(
  Schema.String.check(Schema.makeFilter(isServerList, {
    message: "OPENAPI_SERVERS must be a comma-separated list of absolute http(s) URLs or paths starting with /"
  })),
  "OPENAPI_SERVERS"
))

/** Process-level settings (documented in README.md). */
export const ServerConfig = Config.all({
  port: integer("PORT", 8080, { min: 0, max: 65535, note: "0: any free port" }),
  host: Config.String("HOST").pipe(Config.withDefault("0.0.0.0")),
  internalPort: integer("INTERNAL_PORT", 8081, { min: 0, max: 65535, note: "0: any free port" }),
  internalHost: Config.String("INTERNAL_HOST").pipe(Config.withDefault("127.0.0.1")),
  databaseUrl: Config.option(Config.String("DATABASE_URL")),
  dataDir: Config.String("DATA_DIR").pipe(Config.withDefault("./.data/postgres")),
  databasePoolSize: positiveInteger("DATABASE_POOL_SIZE", 10),
  redisUrl: Config.option(Config.String("REDIS_URL")),
  /** Unset: chosen from the other settings (see QueueChoice.ts). */
  queue: Config.option(Config.Literals(["memory", "postgres", "redis"], "QUEUE")),
  redisPublishTimeoutMs: positiveInteger("REDIS_PUBLISH_TIMEOUT_MS", 5000),
  runWorkers: Config.Boolean("RUN_WORKERS").pipe(Config.withDefault(true)),
  /** The batch workers on a thread of their own, off the event loop that answers requests (WorkersPlacement.ts). */
  persistThread: Config.Boolean("PERSIST_THREAD").pipe(Config.withDefault(true)),
  /** The nice value of that thread alone: under CPU contention the event loop is served first. */
  persistThreadNice: integer("PERSIST_THREAD_NICE", 10, { min: 0, max: 19, note: "0: the event loop's priority" }),
  /** That thread waits before a batch while the event loop answers its ping later than this (LoopPacing.ts). */
  persistYieldLagMs: integer("PERSIST_YIELD_LAG_MS", 3, { min: 0, note: "0: the thread never waits for the event loop" }),
  /** For at most this long a batch: persisting slows down under checkout traffic but never stops. */
  persistYieldMaxMs: integer("PERSIST_YIELD_MAX_MS", 300, { min: 1, max: 60_000 }),
  production: Config.String("NODE_ENV").pipe(Config.map((env) => env === "production"), Config.withDefault(false)),
  allowVolatileQueue: Config.Boolean("ALLOW_VOLATILE_QUEUE").pipe(Config.withDefault(false)),
  shutdownGraceMs: integer("SHUTDOWN_GRACE_MS", 20_000, { min: 0 }),
  uploadIdleTimeoutMs: integer("UPLOAD_IDLE_TIMEOUT_MS", 30_000, { min: 0, note: "0: no watchdog" }),
  uploadMinBytesPerSecond: integer("UPLOAD_MIN_BYTES_PER_SECOND", 1024, { min: 0, note: "0: no minimum" }),
  requestMaxBytes: positiveInteger("REQUEST_MAX_BYTES", 16 * 1024 * 1024),
  openapiServers
})
