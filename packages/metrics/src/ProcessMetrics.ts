import { Effect, Layer } from "effect"
import { constants, monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks"
import { collectOnScrape } from "./Collectors.ts"
import { counter, gauge, gaugeReadOnScrape } from "./Families.ts"

const gcKinds: Readonly<Record<number, string>> = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: "major",
  [constants.NODE_PERFORMANCE_GC_MINOR]: "minor",
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental",
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weakcb"
}

const gcSeconds = counter("nodejs_gc_duration_seconds_total", "Time spent in garbage collection, by kind (major, minor, incremental, weakcb)", ["kind"])
const gcRuns = counter("nodejs_gc_runs_total", "Garbage collections, by kind", ["kind"])

const NS_PER_SECOND = 1e9
const RESOLUTION_MS = 10

const eventLoopDelay = gauge("nodejs_eventloop_delay_seconds", "Event-loop delay since the previous scrape (how late the 10 ms ticks of monitorEventLoopDelay came), by quantile (0.5, 0.99; 1 = the maximum)", ["quantile"])

/**
 * Memory, event-loop delay and (with `gc`, METRICS_GC) GC of this process, read at scrape (GC
 * counted as it happens, from node's performance entries). The event-loop delay percentiles cover the time since the previous
 * scrape: the histogram is reset after each read.
 */
export const ProcessMetricsLive = (options: { readonly gc: boolean }) => Layer.effectDiscard(Effect.gen(function*() {
  const delay = yield* Effect.acquireRelease(
    Effect.sync(() => {
      const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS })
      histogram.enable()
      return histogram
    }),
    (histogram) => Effect.sync(() => histogram.disable())
  )
  // The monitor records the time between its ticks, the resolution included (an idle loop reads
  // ~10.1 ms): the delay is what exceeds the resolution.
  const beyondTick = (nanoseconds: number) => Math.max(0, nanoseconds / NS_PER_SECOND - RESOLUTION_MS / 1000)
  yield* collectOnScrape(Effect.sync(() => {
    if (delay.count > 0) {
      eventLoopDelay.set({ quantile: "0.5" }, beyondTick(delay.percentile(50)))
      eventLoopDelay.set({ quantile: "0.99" }, beyondTick(delay.percentile(99)))
      eventLoopDelay.set({ quantile: "1" }, beyondTick(delay.max))
    }
    delay.reset()
  }))
  const registrations = [
    gaugeReadOnScrape("process_resident_memory_bytes", "Resident set size", () => process.memoryUsage.rss()),
    gaugeReadOnScrape("nodejs_heap_used_bytes", "V8 heap in use", () => process.memoryUsage().heapUsed),
    gaugeReadOnScrape("nodejs_heap_total_bytes", "V8 heap reserved", () => process.memoryUsage().heapTotal),
    gaugeReadOnScrape("nodejs_external_memory_bytes", "Memory of C++ objects bound to JavaScript (Buffers included)", () => process.memoryUsage().external)
  ]
  yield* Effect.addFinalizer(() => Effect.sync(() => registrations.forEach((registration) => registration.remove())))
  if (!options.gc) return
  yield* Effect.acquireRelease(
    Effect.sync(() => {
      const observer = new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
          const detail: unknown = Reflect.get(entry, "detail")
          const code: unknown = typeof detail === "object" && detail !== null ? Reflect.get(detail, "kind") : undefined
          const kind = (typeof code === "number" ? gcKinds[code] : undefined) ?? "other"
          gcRuns.add({ kind })
          gcSeconds.add({ kind }, entry.duration / 1000)
        }
      })
      observer.observe({ entryTypes: ["gc"] })
      return observer
    }),
    (observer) => Effect.sync(() => observer.disconnect())
  )
}))
