import { DEFAULT_CODES_IN_MEMORY, DEFAULT_MAX_ELEMENT_VALUES } from "@retail/ingest"
import { integer, positiveInteger as positive } from "@retail/config"
import { Config, Context, Effect, Layer } from "effect"
import { tmpdir } from "node:os"

/** The most products a batch may hold: a refused entry counting more is taken for corrupt (BatchEntry.ts). */
export const MAX_BATCH_PRODUCTS = 100_000

/** BATCH_ENTRY_FORMAT. */
export type BatchEntrySetting = "auto" | "json" | "columns"

/**
 * The format a load publishes its batches in. With "auto", file loads publish columns: the workers,
 * the slow stage of a big feed, then bind rows without decoding JSON (their loads finished sooner in
 * 8 of 10 runs). `/load-products` publishes the JSON bytes as they came: its client waits for the
 * publish, and encoding columns at intake cost it 45 against 26 µs a product and its p50 83 against
 * 48 ms (docs/performance.md, "Batches encoded at intake").
 */
export const entryFormatOf = (setting: BatchEntrySetting, load: "file" | "loadProducts"): "json" | "columns" =>
  setting === "auto" ? (load === "file" ? "columns" : "json") : setting

/** Everything the upload service reads from the environment, in one place (documented in README.md). */
export class UploadConfig extends Context.Service<UploadConfig, {
  readonly batchSize: number
  /**
   * The format of the product batches loads publish: "columns" (encoded at intake as the binary
   * column arrays the workers bind, persist/BatchEntry.ts), "json" (ProductBatch's JSON, every
   * release before), or "auto": columns for file loads, JSON for /load-products (`entryFormatOf`).
   * Workers read both; "json" is for a rolling deploy from a release that reads only JSON.
   */
  readonly batchEntryFormat: BatchEntrySetting
  readonly workers: number
  readonly claimIdleMs: number
  readonly maxDeliveries: number
  readonly persistTimeoutMs: number
  readonly loadProductsMaxBytes: number
  /** Most JSON values in a /load-products body (3000 sample products hold 390k). */
  readonly loadProductsMaxValues: number
  /** Most JSON values in one element of a JSON file (a product, or a value beside the products), before it is parsed. */
  readonly productMaxValues: number
  readonly responseErrorsCap: number
  /** Largest file part accepted by the file endpoints (each CSV file counts on its own). */
  readonly fileMaxBytes: number
  /** Most parts (files and fields) in one multipart body, and the largest text field. */
  readonly multipartMaxParts: number
  readonly multipartMaxFieldBytes: number
  /** Where file loads spool their validated batches until the whole file has been read. */
  readonly spoolDir: string
  /** productCodes a file load keeps in memory for the duplicate rule before spilling them to its spool folder. */
  readonly codesInMemory: number
  /** Threads parsing and validating /handle-json products (0: on the event loop's thread). */
  readonly jsonValidationThreads: number
  /** Worker threads joining /handle-csv partitions (0: joined in the request's fiber). */
  readonly csvJoinThreads: number
  /** Old-generation cap of each of those threads in MiB (0: V8's default). */
  readonly csvJoinThreadHeapMb: number
  readonly batchesStream: string
  readonly consumerGroup: string
  readonly eventsStream: string
  readonly consumerPrefix: string
  /** A load's owner whose heartbeat is older than this is taken for gone, and its loads reconciled. */
  readonly loadLeaseMs: number
  /** How often each process renews its lease and reconciles the loads not yet final. */
  readonly reconcileIntervalMs: number
  /** How long shutdown waits for the in-process queue to be persisted (Redis needs no draining). */
  readonly queueDrainTimeoutMs: number
  /** Days the record of a finished load is kept (its row, errors, batch ledger, events); 0: kept forever. */
  readonly loadRetentionDays: number
  /** Dead letters kept on the batches' dead-letter stream, the newest; 0: every one. */
  readonly deadLetterMaxEntries: number
}>()("@retail/upload/UploadConfig") {
  static readonly layer = Layer.effect(
    UploadConfig,
    Effect.gen(function*() {
      return {
        batchSize: yield* integer("PRODUCT_BATCH_SIZE", 250, { min: 1, max: MAX_BATCH_PRODUCTS }),
        batchEntryFormat: yield* Config.Literals(["auto", "json", "columns"], "BATCH_ENTRY_FORMAT").pipe(Config.withDefault("auto" as const)),
        workers: yield* positive("WORKERS", 2),
        claimIdleMs: yield* positive("CLAIM_IDLE_MS", 30_000),
        maxDeliveries: yield* positive("MAX_DELIVERIES", 5),
        persistTimeoutMs: yield* positive("PERSIST_TIMEOUT_MS", 30_000),
        loadProductsMaxBytes: yield* positive("LOAD_PRODUCTS_MAX_BYTES", 32 * 1024 * 1024),
        loadProductsMaxValues: yield* positive("LOAD_PRODUCTS_MAX_VALUES", 1_000_000),
        productMaxValues: yield* positive("PRODUCT_MAX_VALUES", DEFAULT_MAX_ELEMENT_VALUES),
        responseErrorsCap: yield* positive("RESPONSE_ERRORS_CAP", 1000),
        fileMaxBytes: yield* positive("FILE_MAX_BYTES", 2 * 1024 * 1024 * 1024),
        multipartMaxParts: yield* positive("MULTIPART_MAX_PARTS", 16),
        multipartMaxFieldBytes: yield* positive("MULTIPART_MAX_FIELD_BYTES", 64 * 1024),
        spoolDir: yield* Config.String("SPOOL_DIR").pipe(Config.withDefault(tmpdir())),
        codesInMemory: yield* positive("PRODUCT_CODES_IN_MEMORY", DEFAULT_CODES_IN_MEMORY),
        jsonValidationThreads: yield* integer("JSON_VALIDATION_THREADS", 2, { min: 0, max: 64, note: "0: on the event loop" }),
        csvJoinThreads: yield* integer("CSV_JOIN_THREADS", 2, { min: 0, max: 64, note: "0: in the request's fiber" }),
        csvJoinThreadHeapMb: yield* integer("CSV_JOIN_THREAD_HEAP_MB", 0, { min: 0, note: "0: V8's default" }),
        batchesStream: yield* Config.String("PRODUCT_BATCHES_STREAM").pipe(Config.withDefault("products:batches")),
        consumerGroup: yield* Config.String("PRODUCT_CONSUMER_GROUP").pipe(Config.withDefault("product-writers")),
        eventsStream: yield* Config.String("LOAD_EVENTS_STREAM").pipe(Config.withDefault("product-loads:events")),
        consumerPrefix: yield* Config.String("CONSUMER_NAME").pipe(
          Config.withDefault(`${process.env["HOSTNAME"] ?? "local"}-${process.pid}`)
        ),
        loadLeaseMs: yield* positive("LOAD_LEASE_MS", 30_000),
        reconcileIntervalMs: yield* positive("LOAD_RECONCILE_INTERVAL_MS", 10_000),
        queueDrainTimeoutMs: yield* integer("QUEUE_DRAIN_TIMEOUT_MS", 60_000, { min: 0 }),
        loadRetentionDays: yield* integer("LOAD_RETENTION_DAYS", 30, { min: 0, max: 36_500, note: "0: kept forever" }),
        deadLetterMaxEntries: yield* integer("DEAD_LETTER_MAX_ENTRIES", 1000, { min: 0, note: "0: every one kept" })
      }
    })
  )

  static readonly test = (overrides: Partial<Context.Service.Shape<typeof UploadConfig>> = {}) =>
    Layer.succeed(UploadConfig, {
      batchSize: 250,
      batchEntryFormat: "auto",
      workers: 2,
      claimIdleMs: 1_000,
      maxDeliveries: 3,
      persistTimeoutMs: 10_000,
      loadProductsMaxBytes: 32 * 1024 * 1024,
      loadProductsMaxValues: 1_000_000,
      productMaxValues: DEFAULT_MAX_ELEMENT_VALUES,
      responseErrorsCap: 1000,
      fileMaxBytes: 2 * 1024 * 1024 * 1024,
      multipartMaxParts: 16,
      multipartMaxFieldBytes: 64 * 1024,
      spoolDir: tmpdir(),
      codesInMemory: DEFAULT_CODES_IN_MEMORY,
      jsonValidationThreads: 0,
      csvJoinThreads: 2,
      csvJoinThreadHeapMb: 0,
      batchesStream: `products:batches:${crypto.randomUUID()}`,
      consumerGroup: "product-writers",
      eventsStream: `product-loads:events:${crypto.randomUUID()}`,
      consumerPrefix: "test",
      loadLeaseMs: 30_000,
      reconcileIntervalMs: 10_000,
      queueDrainTimeoutMs: 10_000,
      loadRetentionDays: 30,
      deadLetterMaxEntries: 1000,
      ...overrides
    })
}
