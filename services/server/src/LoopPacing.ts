import { UploadMetrics } from "@retail/metrics"
import type { BatchPacingShape } from "@retail/service-upload"
import { Clock, Effect } from "effect"
import type { EventLoopAnswer } from "./EventLoopPing.ts"

export interface LoopPacingSettings {
  /** PERSIST_YIELD_LAG_MS: a ping answered later than this says the event loop is behind; 0: never wait. */
  readonly lagMs: number
  /** PERSIST_YIELD_MAX_MS: the longest wait before one batch, so that persisting goes on under any load. */
  readonly maxWaitMs: number
}

/** How long the event loop is left to work before it is asked again. */
const STEP_MS = 5

/**
 * The workers' thread gives way to the event loop while it serves checkout. Before a batch it pings
 * the event loop (`ping`: a message the event loop answers when it gets to it, with the checkout
 * requests taken so far); while the answer comes later than PERSIST_YIELD_LAG_MS and checkout
 * requests came since the previous answer, it waits and asks again, for at most
 * PERSIST_YIELD_MAX_MS a batch, so persisting slows down but never stops. A late answer with no
 * checkout in between (the event loop publishing a load's batches, say) does not hold a batch. On
 * the event loop itself persisting waits behind the requests anyway; on a thread it would not, and
 * the PostgreSQL and Redis work each batch starts takes the cores checkout needs (docs/performance.md).
 * An unanswered ping (an event loop blocked outright) counts as late and busy.
 */
export const loopPacing = (ping: Effect.Effect<EventLoopAnswer>, settings: LoopPacingSettings): BatchPacingShape => {
  if (settings.lagMs === 0) return { beforeBatch: Effect.void }
  let checkoutSeen: number | undefined
  const behindOnCheckout = (answer: EventLoopAnswer | undefined): boolean => {
    if (answer === undefined) return true
    const busy = answer.checkout !== checkoutSeen
    checkoutSeen = answer.checkout
    return busy && answer.lateMs > settings.lagMs
  }
  const beforeBatch = Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    let elapsed = 0
    let held = false
    while (elapsed < settings.maxWaitMs) {
      const answer = yield* ping.pipe(
        Effect.timeoutOrElse({ duration: settings.maxWaitMs - elapsed, orElse: () => Effect.undefined })
      )
      elapsed = (yield* Clock.currentTimeMillis) - started
      if (!behindOnCheckout(answer)) break
      held = true
      if (elapsed + STEP_MS > settings.maxWaitMs) break
      yield* Effect.sleep(STEP_MS)
      elapsed = (yield* Clock.currentTimeMillis) - started
    }
    if (held) {
      UploadMetrics.persistPacedBatches.add({}, 1)
      UploadMetrics.persistPacedSeconds.add({}, elapsed / 1000)
    }
  })
  return { beforeBatch }
}
