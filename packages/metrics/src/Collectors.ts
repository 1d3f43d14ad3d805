import { Duration, Effect, type Scope } from "effect"
import { PrometheusMetrics } from "effect/observability"
import { registryContext } from "./Families.ts"

/**
 * Gauges that need I/O to read (a stream's length, its pending entries) are set by collectors run
 * when /metrics is scraped, not on a timer: a server nobody scrapes does no such work. Each is
 * bounded: a queue that does not answer leaves its gauges at their last values.
 */
const collectors = new Set<Effect.Effect<void>>()

const COLLECT_TIMEOUT = Duration.seconds(2)

/** Runs `collect` at every scrape while the scope is open. */
export const collectOnScrape = (collect: Effect.Effect<void>): Effect.Effect<void, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const bounded = collect.pipe(Effect.timeout(COLLECT_TIMEOUT), Effect.ignore)
      collectors.add(bounded)
      return bounded
    }),
    (bounded) => Effect.sync(() => collectors.delete(bounded))
  ).pipe(Effect.asVoid)

/** The Prometheus text of every metric of the process, after the collectors have run. */
export const scrape: Effect.Effect<string> = Effect.suspend(() =>
  Effect.forEach([...collectors], (collect) => collect, { concurrency: "unbounded", discard: true })
).pipe(Effect.map(() => PrometheusMetrics.formatUnsafe(registryContext)))
