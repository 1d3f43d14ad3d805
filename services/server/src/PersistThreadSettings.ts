import { Schema } from "effect"

/**
 * What the batch workers' thread is given (as its workerData) to reach what the server reached: the
 * same database (the URL of DATABASE_URL, or the embedded server's socket) and the same queue; and
 * the values of THREAD_SETTINGS as the server's configuration gave them (its environment, or what a
 * test provided), which the thread reads as its own configuration.
 */
export const PersistThreadSettings = Schema.Struct({
  databaseUrl: Schema.String,
  poolSize: Schema.Number,
  queue: Schema.Literals(["redis", "postgres"]),
  redisUrl: Schema.String,
  redisPublishTimeoutMs: Schema.Number,
  /** PERSIST_THREAD_NICE: the thread's own nice value (Linux keeps one per thread). */
  nice: Schema.Number,
  /** PERSIST_YIELD_LAG_MS and PERSIST_YIELD_MAX_MS: how the thread gives way to the event loop (LoopPacing.ts). */
  yieldLagMs: Schema.Number,
  yieldMaxMs: Schema.Number,
  /** Where the database is, for the PostgreSQL queue's durability sentence. */
  databaseLocation: Schema.String,
  /** The server's stdout is a terminal (a thread's never is): the log format LOG_FORMAT unset means. */
  stdoutIsTty: Schema.Boolean,
  /** THREAD_SETTINGS that are set, by name. */
  settings: Schema.Record(Schema.String, Schema.String)
})
export type PersistThreadSettings = typeof PersistThreadSettings.Type

/**
 * Messages from the server to its batch workers' thread: stop; and the answer to the thread's
 * ping, sent when the event loop got to it, with the checkout requests taken so far
 * (CheckoutTraffic.ts; LoopPacing.ts).
 */
export const ToPersistThread = Schema.Union([
  Schema.Struct({ _tag: Schema.Literal("Stop") }),
  Schema.Struct({ _tag: Schema.Literal("Pong"), id: Schema.Number, checkout: Schema.Number })
])
export type ToPersistThread = typeof ToPersistThread.Type

/** The thread's ping: the server answers it with a Pong of the same id. */
export const PingFromThread = Schema.Struct({ _tag: Schema.Literal("Ping"), id: Schema.Number })
export type PingFromThread = typeof PingFromThread.Type

/** The settings the thread's layers read (README.md): the upload service's, the metrics' switch, the logs' and the traces'. */
export const THREAD_SETTINGS: ReadonlyArray<string> = [
  "PRODUCT_BATCH_SIZE", "WORKERS", "CLAIM_IDLE_MS", "MAX_DELIVERIES", "PERSIST_TIMEOUT_MS", "LOAD_PRODUCTS_MAX_BYTES",
  "LOAD_PRODUCTS_MAX_VALUES", "PRODUCT_MAX_VALUES", "RESPONSE_ERRORS_CAP", "FILE_MAX_BYTES", "MULTIPART_MAX_PARTS",
  "MULTIPART_MAX_FIELD_BYTES", "SPOOL_DIR", "PRODUCT_CODES_IN_MEMORY", "JSON_VALIDATION_THREADS", "CSV_JOIN_THREADS",
  "CSV_JOIN_THREAD_HEAP_MB", "PRODUCT_BATCHES_STREAM", "PRODUCT_CONSUMER_GROUP", "LOAD_EVENTS_STREAM", "CONSUMER_NAME",
  "LOAD_LEASE_MS", "LOAD_RECONCILE_INTERVAL_MS", "QUEUE_DRAIN_TIMEOUT_MS",
  "METRICS_ENABLED", "LOG_FORMAT", "LOG_LEVEL",
  "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG",
  "OTEL_SERVICE_NAME", "OTEL_EXPORTER_OTLP_HEADERS"
]
