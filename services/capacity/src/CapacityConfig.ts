import { integer, positiveInteger as positive } from "@retail/config"
import { Config, Context, Effect, Layer, Option } from "effect"

export interface CapacitySettings {
  readonly apiKeys: ReadonlySet<string>
  readonly horizonDays: number
  readonly deliveryDatesCount: number
  /** The Redis Stream of capacity events shared by server processes; none without REDIS_URL. */
  readonly eventsStream: Option.Option<string>
  /** Largest body of POST /v1/delivery/capacity (413 beyond). */
  readonly maxBodyBytes: number
  /** Largest body of PUT /v1/network and POST /v1/delivery/capacity/consumptions (REQUEST_MAX_BYTES; 413 beyond). */
  readonly requestMaxBytes: number
  /** Most JSON values in a body of PUT /v1/network or POST /v1/delivery/capacity/consumptions (413 beyond). */
  readonly requestMaxValues: number
  /**
   * The body watchdog of the fast lane, with the Effect stack's settings (UPLOAD_IDLE_TIMEOUT_MS,
   * UPLOAD_MIN_BYTES_PER_SECOND): a body is answered 408 when a window of this length passes with
   * fewer than its share of bytes (none at all counts). 0: no watchdog.
   */
  readonly bodyIdleTimeoutMs: number
  readonly bodyMinBytesPerSecond: number
  /** How often usage is re-read from Postgres to catch changes whose event was lost; 0 = never. */
  readonly reconcileIntervalMs: number
  /** Days the past is kept before the engine's oldest day (yesterday): orders, their ledger, usage, network changes; 0: kept forever. */
  readonly retentionDays: number
}

/** Everything the capacity service reads from the environment, in one place (documented in README.md). */
export class CapacityConfig extends Context.Service<CapacityConfig, CapacitySettings>()("@retail/capacity/CapacityConfig") {
  static readonly layer = Layer.effect(
    CapacityConfig,
    Effect.gen(function*() {
      const listed = (yield* Config.String("CAPACITY_API_KEYS").pipe(Config.withDefault("")))
        .split(",").map((key) => key.trim()).filter((key) => key !== "")
      const production = (yield* Config.String("NODE_ENV").pipe(Config.withDefault(""))) === "production"
      let apiKeys = listed
      if (apiKeys.length === 0) {
        if (production) {
          return yield* Effect.die(new Error("CAPACITY_API_KEYS must be set when NODE_ENV=production"))
        }
        const generated = `dev-${crypto.randomUUID()}`
        yield* Effect.logWarning(`CAPACITY_API_KEYS is not set; capacity API key for this run: ${generated}`)
        apiKeys = [generated]
      }
      return {
        apiKeys: new Set(apiKeys),
        horizonDays: yield* positive("CAPACITY_HORIZON_DAYS", 30),
        deliveryDatesCount: yield* positive("DELIVERY_DATES_COUNT", 5),
        eventsStream: Option.as(
          yield* Config.option(Config.String("REDIS_URL")),
          yield* Config.String("CAPACITY_EVENTS_STREAM").pipe(Config.withDefault("capacity:events"))
        ),
        maxBodyBytes: yield* positive("CAPACITY_MAX_BODY_BYTES", 1024 * 1024),
        requestMaxBytes: yield* positive("REQUEST_MAX_BYTES", 16 * 1024 * 1024),
        requestMaxValues: yield* positive("REQUEST_MAX_VALUES", 1_000_000),
        reconcileIntervalMs: yield* integer("CAPACITY_RECONCILE_INTERVAL_MS", 30_000, { min: 0, note: "0: never" }),
        retentionDays: yield* integer("CAPACITY_RETENTION_DAYS", 90, { min: 0, max: 36_500, note: "0: kept forever" }),
        bodyIdleTimeoutMs: yield* integer("UPLOAD_IDLE_TIMEOUT_MS", 30_000, { min: 0, note: "0: no watchdog" }),
        bodyMinBytesPerSecond: yield* integer("UPLOAD_MIN_BYTES_PER_SECOND", 1024, { min: 0, note: "0: no minimum" })
      }
    })
  )

  /** Settings for tests and in-process benchmarks: no keys, no events stream, no watchdog, no reconciler, no sweep. */
  static readonly settings = (overrides: Partial<CapacitySettings> = {}): CapacitySettings => ({
    apiKeys: new Set(),
    horizonDays: 30,
    deliveryDatesCount: 5,
    eventsStream: Option.none(),
    maxBodyBytes: 1024 * 1024,
    requestMaxBytes: 16 * 1024 * 1024,
    requestMaxValues: 1_000_000,
    reconcileIntervalMs: 0,
    retentionDays: 0,
    bodyIdleTimeoutMs: 0,
    bodyMinBytesPerSecond: 0,
    ...overrides
  })

  static readonly test = (overrides: Partial<CapacitySettings> = {}) => Layer.succeed(CapacityConfig, CapacityConfig.settings(overrides))
}
