import { planCacheCounts } from "@retail/capacity"
import { counterReadOnScrape } from "@retail/metrics"
import { Effect } from "effect"

const HELP = "Route plans the engine asked of its plan cache, by result (hit: an equal dispatch's plan reused; miss: planned afresh)"

/** capacity_plan_cache_total{result}, read from the engine's own counts at scrape while the scope is open. */
export const meterPlanCache = Effect.acquireRelease(
  Effect.sync(() => [
    counterReadOnScrape("capacity_plan_cache_total", HELP, () => planCacheCounts.hits, { result: "hit" }),
    counterReadOnScrape("capacity_plan_cache_total", HELP, () => planCacheCounts.asked - planCacheCounts.hits, { result: "miss" })
  ]),
  (registrations) => Effect.sync(() => registrations.forEach((registration) => registration.remove()))
)
