import { UploadMetrics } from "@retail/metrics"
import { StreamQueue } from "@retail/queue"
import { LoadOwnership, LoadRepository, type UnfinishedLoad } from "@retail/store"
import { Clock, Context, Effect, Layer, Option, Ref } from "effect"
import { repeatInBackground } from "../BackgroundLoop.ts"
import { LoadOwner } from "../publish/LoadOwner.ts"
import { loadBatchesSet } from "../publish/LoadTracking.ts"
import { UploadConfig } from "../UploadConfig.ts"

/** A load the queue lost batches of, as /ready reports it. */
export interface QueueLoss {
  readonly at: string
  readonly processCode: string
  readonly lostBatches: number
  readonly batches: number
}

const RECENT_LOSSES = 20

/** How a queue of each kind comes to lose batches, for the reason a caller reads. */
const LOST_BY = {
  memory: "the in-process queue stopped with its server before they were persisted",
  redis: "Redis lost them before they were persisted (restarted without its append-only file?)",
  postgres: "the queue's tables lost them before they were persisted (emptied, or the database restored from an older backup?)"
} as const

const RESEND = "The products counted as persisted are stored; the rest never will be: send the load again."

/** What became of a load the reconciler looked at. */
type Verdict =
  | { readonly _tag: "InProgress" }
  | { readonly _tag: "Published" }
  | { readonly _tag: "Fail"; readonly reason: string }
  /** Batches neither on the queue nor recorded when looked at: counted again under the load's lock before it FAILS. */
  | { readonly _tag: "Lost"; readonly batches: number; readonly onQueue: ReadonlySet<string> }

const inProgress: Verdict = { _tag: "InProgress" }

/**
 * Makes every load end COMPLETED or FAILED in bounded time, whatever died. Each process renews
 * its lease (a heartbeat) and, every LOAD_RECONCILE_INTERVAL_MS, looks at the loads not yet final:
 * - a load still being received by a process whose lease ran out (LOAD_LEASE_MS) was never fully
 *   published: FAILED;
 * - a published load whose batches are neither recorded in the database nor still on the queue
 *   (tracked per load beside the stream) lost them with the queue: FAILED, and reported;
 * - a load fully published whose owner died before marking it PROCESSING is marked so.
 * A load of this process is judged so too once its request ended without settling it
 * (LoadOwner's AbandonedLoads): the process lives, but nothing else would settle it.
 */
export class LoadReconciler extends Context.Service<LoadReconciler>()("@retail/upload/LoadReconciler", {
  make: Effect.gen(function*() {
    const ownership = yield* LoadOwnership
    const loads = yield* LoadRepository
    const queue = yield* StreamQueue
    const owner = yield* LoadOwner
    const config = yield* UploadConfig
    const losses = yield* Ref.make<ReadonlyArray<QueueLoss>>([])

    /** Of batch numbers 0..batches-1, how many are neither on the queue nor recorded. */
    const countMissing = (batches: number, onQueue: ReadonlySet<string>, recorded: ReadonlySet<number>) => {
      let missing = 0
      for (let batchNo = 0; batchNo < batches; batchNo++) {
        if (!onQueue.has(String(batchNo)) && !recorded.has(batchNo)) missing++
      }
      return missing
    }

    /** Batches neither on the queue nor recorded; the queue is read first, so a batch acked in between is recorded. */
    const missingBatches = (load: UnfinishedLoad, batches: number) =>
      Effect.gen(function*() {
        const onQueue = new Set(yield* queue.tracked(loadBatchesSet(config.batchesStream, load.processCode)))
        const recorded = new Set(yield* ownership.recordedBatches(load.processCode))
        return { missing: countMissing(batches, onQueue, recorded), recorded: recorded.size, onQueue }
      })

    const judge = (load: UnfinishedLoad): Effect.Effect<Verdict, unknown> =>
      Effect.gen(function*() {
        const mine = load.owner === owner.id
        // This process's own loads are settled here only once their request ended without settling
        // them, and the lease a dead owner is given has passed since (a publish cut off may still land).
        const abandonedAt = mine ? owner.abandoned.since(load.processCode) : undefined
        const ownerGone = mine
          ? abandonedAt !== undefined && (yield* Clock.currentTimeMillis) - abandonedAt >= config.loadLeaseMs
          : !load.ownerAlive
        if (load.receiving) {
          return ownerGone
            ? {
              _tag: "Fail",
              reason: mine
                ? `Publishing this load stopped before all of it was published (the database or the messaging system failed, or the request was cut off). ${RESEND}`
                : `The server receiving this load stopped before publishing all of it (no heartbeat for ${config.loadLeaseMs} ms). ${RESEND}`
            }
            : inProgress
        }
        // Publication of a request body goes on until its owner marks it PROCESSING.
        if (load.batches === null || (load.status === "RECEIVED" && !ownerGone)) return inProgress
        // The in-process queue of another live process is out of sight.
        if (queue.processLocal && !mine && !ownerGone) return inProgress
        const { missing, recorded, onQueue } = yield* missingBatches(load, load.batches)
        if (missing === 0) return load.status === "RECEIVED" ? { _tag: "Published" } : inProgress
        if (load.status === "RECEIVED" && missing === load.batches && recorded === 0) {
          return {
            _tag: "Fail",
            reason: `${mine ? "Publishing this load failed" : "The server receiving this load stopped before publishing it"}; nothing of it was stored. Send the load again.`
          }
        }
        return { _tag: "Lost", batches: load.batches, onQueue }
      })

    const reportLoss = (processCode: string, reason: string, lost: { readonly missing: number; readonly batches: number }) =>
      Effect.gen(function*() {
        yield* Effect.logError(`the queue lost data: load ${processCode} FAILED: ${reason}`)
        const at = new Date(yield* Clock.currentTimeMillis).toISOString()
        yield* Ref.update(losses, (recent) =>
          [{ at, processCode, lostBatches: lost.missing, batches: lost.batches }, ...recent].slice(0, RECENT_LOSSES))
      })

    const settle = (load: UnfinishedLoad) =>
      Effect.flatMap(judge(load), (verdict) => {
        switch (verdict._tag) {
          case "InProgress":
            return Effect.void
          case "Published":
            return loads.markProcessing(load.processCode)
          case "Fail":
            return Effect.gen(function*() {
              if (yield* loads.markFailed(load.processCode, verdict.reason)) yield* Effect.logWarning(`load ${load.processCode} FAILED: ${verdict.reason}`)
            })
          case "Lost": {
            const { batches, onQueue } = verdict
            const reasonOf = (missing: number) => `${missing} of the load's ${batches} batches were lost: ${LOST_BY[queue.kind]}. ${RESEND}`
            return Effect.flatMap(
              loads.markFailedLost(load.processCode, (recorded) => countMissing(batches, onQueue, recorded), reasonOf),
              Option.match({
                onNone: () => Effect.void,
                onSome: (missing) => reportLoss(load.processCode, reasonOf(missing), { missing, batches })
              })
            )
          }
        }
      })

    const pass = Effect.gen(function*() {
      yield* ownership.heartbeat(owner.id, owner.name)
      // Taken before the loads are read: an abandoned load not among the unfinished then is final (or forgotten).
      const abandoned = owner.abandoned.snapshot()
      const unfinished = yield* ownership.unfinished(config.loadLeaseMs, config.batchesStream)
      yield* Effect.sync(() => UploadMetrics.countUnfinished(unfinished))
      yield* Effect.forEach(unfinished, (load) =>
        settle(load).pipe(Effect.catchCause((cause) => Effect.logWarning(`could not reconcile load ${load.processCode}`, cause))), { discard: true })
      const stillUnfinished = new Set(unfinished.map((load) => load.processCode))
      for (const processCode of abandoned) if (!stillUnfinished.has(processCode)) owner.abandoned.forget(processCode)
    })

    yield* ownership.register(owner.id, owner.name).pipe(
      Effect.catch((error) => Effect.logWarning("could not register this server's lease yet; retrying with the next heartbeat", error))
    )
    // Registered before the loop is forked, so the loop is interrupted first and the lease given up last.
    yield* Effect.addFinalizer(() =>
      ownership.deregister(owner.id).pipe(Effect.catch((error) => Effect.logWarning("could not give up this server's lease", error)))
    )
    yield* repeatInBackground(pass, config.reconcileIntervalMs, "reconciling loads failed; retrying")

    return {
      /** The most recent loads the queue lost batches of, newest first. */
      losses: Ref.get(losses)
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
