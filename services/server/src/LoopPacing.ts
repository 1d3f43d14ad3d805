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
/** Checkout counts as being served for this long after its count was last seen moving. */
export const CHECKOUT_RECENT_MS = 50

/**
 * The workers' thread gives way to the event loop while it serves checkout. Before a batch it pings
 * the event loop (`ping`: a message the event loop answers when it gets to it, with the checkout
 * requests taken so far); while the answer comes later than PERSIST_YIELD_LAG_MS and the checkout
 * count moved within CHECKOUT_RECENT_MS, it waits and asks again, for at most
 * PERSIST_YIELD_MAX_MS a batch, so persisting slows down but never stops. A late answer with no
 * checkout lately (the event loop publishing a load's batches, say) does not hold a batch. On
 * the event loop itself persisting waits behind the requests anyway; on a thread it would not, and
 * the PostgreSQL and Redis work each batch starts takes the cores checkout needs (docs/performance.md).
 * An unanswered ping (an event loop blocked outright) counts as late and busy.
 */
export const loopPacing = (ping: Effect.Effect<EventLoopAnswer>, settings: LoopPacingSettings): BatchPacingShape => {
  if (settings.lagMs === 0) return { beforeBatch: Effect.void }
  // Shared by the consumers: two answered in the same turn of the event loop see the same count,
  // and checkout counts as served for CHECKOUT_RECENT_MS after the count was last seen moving.
  let checkoutSeen: number | undefined
  let checkoutMovedAt = Number.NEGATIVE_INFINITY
  const behindOnCheckout = (answer: EventLoopAnswer | undefined, now: number): boolean => {
    if (answer === undefined) return true
    if (checkoutSeen !== undefined && answer.checkout !== checkoutSeen) checkoutMovedAt = now
    checkoutSeen = answer.checkout
    return answer.lateMs > settings.lagMs && now - checkoutMovedAt <= CHECKOUT_RECENT_MS
  }
  const beforeBatch = Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    let elapsed = 0
    let held = false
    while (elapsed < settings.maxWaitMs) {
      const answer = yield* ping.pipe(
        Effect.timeoutOrElse({ duration: settings.maxWaitMs - elapsed, orElse: () => Effect.undefined })
      )
      const now = yield* Clock.currentTimeMillis
      elapsed = now - started
      if (!behindOnCheckout(answer, now)) break
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
