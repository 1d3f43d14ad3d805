import { collectOnScrape, QueueMetrics, timedSeconds } from "@retail/metrics"
import { Effect, Exit, type Scope } from "effect"
import { deadStream, type StreamQueueShape } from "./StreamQueue.ts"

/**
 * The queue with its metrics (docs/observability.md), the same names whatever keeps the entries:
 * publish latency and failures, deliveries and dead letters as they happen; the backlog of every
 * group this process consumes (length, pending, lag, oldest pending) read when /metrics is scraped.
 */
export const metered = (queue: StreamQueueShape): Effect.Effect<StreamQueueShape, never, Scope.Scope> =>
  Effect.gen(function*() {
    const groups = new Map<string, { readonly stream: string; readonly group: string }>()

    yield* collectOnScrape(Effect.suspend(() => Effect.forEach([...groups.values()], ({ stream, group }) =>
      Effect.all([queue.length(stream), queue.length(deadStream(stream)), queue.groupStats(stream, group)]).pipe(
        Effect.map(([length, dead, stats]) => {
          QueueMetrics.streamLength.set({ stream }, length)
          QueueMetrics.deadLetterLength.set({ stream }, dead)
          QueueMetrics.pendingEntries.set({ stream, group }, stats.pending)
          if (stats.lag !== null) QueueMetrics.consumerLag.set({ stream, group }, stats.lag)
          QueueMetrics.oldestPendingSeconds.set({ stream, group }, stats.oldestPendingMs / 1000)
        }),
        Effect.ignore
      ), { discard: true })))

    const delivered = (stream: string, group: string) => (deliveries: ReadonlyArray<unknown>) =>
      Effect.sync(() => {
        if (deliveries.length > 0) QueueMetrics.deliveries.add({ stream, group }, deliveries.length)
      })

    return {
      ...queue,
      publish: (stream, payloads, options) =>
        timedSeconds(queue.publish(stream, payloads, options), (seconds, exit) => {
          if (Exit.isSuccess(exit)) {
            QueueMetrics.publishSeconds.observe({ stream }, seconds)
            QueueMetrics.publishedEntries.add({ stream }, payloads.length)
          } else {
            QueueMetrics.publishFailures.add({ stream })
          }
        }),
      ensureGroup: (stream, group) =>
        Effect.tap(queue.ensureGroup(stream, group), () => Effect.sync(() => groups.set(`${stream}\u0000${group}`, { stream, group }))),
      read: (stream, group, consumer, options) => Effect.tap(queue.read(stream, group, consumer, options), delivered(stream, group)),
      claimStale: (stream, group, consumer, options) => Effect.tap(queue.claimStale(stream, group, consumer, options), delivered(stream, group)),
      deadLetter: (stream, group, delivery, reason, options) =>
        Effect.tap(queue.deadLetter(stream, group, delivery, reason, options), () => Effect.sync(() => QueueMetrics.deadLetters.add({ stream })))
    }
  })
