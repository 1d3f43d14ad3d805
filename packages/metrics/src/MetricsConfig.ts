import { Config } from "effect"

/** The switches of /metrics (documented in README.md and docs/observability.md). */
export const MetricsConfig = Config.all({
  /** false: no per-request instrumentation, no process collectors, no /metrics route (for the overhead comparison). */
  enabled: Config.Boolean("METRICS_ENABLED").pipe(Config.withDefault(true)),
  /**
   * true: count garbage collections (nodejs_gc_*). Off by default: node reports every collection to
   * a PerformanceObserver, and at checkout rates (hundreds of scavenges a second) that cost about
   * 3-5 µs of CPU per capacity request, 7-10% (docs/observability.md).
   */
  gc: Config.Boolean("METRICS_GC").pipe(Config.withDefault(false)),
  /** true: /metrics on the public listener too (it is always on the internal one). */
  public: Config.Boolean("METRICS_PUBLIC").pipe(Config.withDefault(false))
})
