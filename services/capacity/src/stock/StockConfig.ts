import { integer } from "@retail/config"
import { Config, Context, Effect, Layer, Option } from "effect"

export interface StockSettings {
  /** The Redis Stream of stock changes between server processes; none without REDIS_URL. */
  readonly stream: Option.Option<string>
  /** How often rows written since the last pass are re-read from Postgres; 0 = never (CAPACITY_RECONCILE_INTERVAL_MS). */
  readonly reconcileIntervalMs: number
}

/**
 * Stock's settings (README.md): its own stream, named after the capacity events' stream by
 * default (`<CAPACITY_EVENTS_STREAM>:stock`), because its entries are large (up to 5,000 rows) and
 * kept fewer; the reconciler's interval is capacity's.
 */
export class StockConfig extends Context.Service<StockConfig, StockSettings>()("@retail/capacity/StockConfig") {
  static readonly layer = Layer.effect(
    StockConfig,
    Effect.gen(function*() {
      const events = yield* Config.String("CAPACITY_EVENTS_STREAM").pipe(Config.withDefault("capacity:events"))
      const stream = yield* Config.String("CAPACITY_STOCK_STREAM").pipe(Config.withDefault(`${events}:stock`))
      return {
        stream: Option.as(yield* Config.option(Config.String("REDIS_URL")), stream),
        reconcileIntervalMs: yield* integer("CAPACITY_RECONCILE_INTERVAL_MS", 30_000, { min: 0, note: "0: never" })
      }
    })
  )
}
