import { Config } from "effect"

/** The switches of /metrics (documented in README.md and docs/observability.md). */
export const MetricsConfig = Config.all({
  /** false: no per-request instrumentation, no process collectors, no /metrics route (for the overhead comparison). */
  enabled: Config.Boolean("METRICS_ENABLED").pipe(Config.withDefault(true)),
  /** true: /metrics on the public listener too (it is always on the internal one). */
  public: Config.Boolean("METRICS_PUBLIC").pipe(Config.withDefault(false))
})
