import { type Delivery, QueueTracing, StreamQueue } from "@retail/queue"
import { type BatchHeader, Database, LoadRepository, ProductRepository, sentSkus, StoreError } from "@retail/store"
import { Cause, Effect, Fiber, Layer, Option, Result, Schedule } from "effect"
import { trackBatches } from "../publish/LoadTracking.ts"
import { type BatchEntry, decodeBatchEntry, headerOf, refusedBatchOf, type RefusedBatch } from "./BatchEntry.ts"
import { BatchPacing } from "./BatchPacing.ts"
import { UploadConfig } from "../UploadConfig.ts"

const restartAfterFailure = <A, E, R>(name: string, loop: Effect.Effect<A, E, R>) =>
  loop.pipe(
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause) ? Effect.interrupt : Effect.logError(`${name} failed; restarting`, cause)
    ),
    Effect.repeat(Schedule.spaced("1 second"))
  )

/**
 * The polls that wait for entries are no trace of their own (a PostgreSQL queue polls every 200 ms):
 * a trace starts with the entry's consumption, continuing its publisher's.
 */
const untraced = Effect.withTracerEnabled(false)

const persistSpan = (entry: BatchEntry) => {
  const { processCode, company, batchNo, products } = headerOf(entry)
  return Effect.withSpan("batch.persist", { attributes: { processCode, company, batchNo, products, format: entry._tag } })
}

/** Why a batch was not persisted: the store's message, or the defect's. */
const reasonOf = (cause: Cause.Cause<StoreError>): string =>
  Option.match(Cause.findErrorOption(cause), {
    onSome: (error) => error.message,
    onNone: () => {
      const defect = Cause.squash(cause)
      return `unexpected error: ${defect instanceof Error ? defect.message : String(defect)}`
    }
  })

/** A batch's load and batch number, and the SKU of every product it sent, for the load's error list. */
const deadBatchOf = (entry: BatchEntry): RefusedBatch => ({
  header: headerOf(entry),
  skus: entry._tag === "Json" ? entry.batch.products.map((p) => p.skuCode) : sentSkus(entry.batch)
})

/**
 * A persisted (or dead-lettered) batch leaves the stream, and its load's tracking set, in one step:
 * Redis holds the backlog, not every batch ever loaded.
 */
const workDone = (stream: string, header: Pick<BatchHeader, "processCode" | "batchNo"> | null) =>
  header === null ? { deleteEntries: true } : { deleteEntries: true, untrack: trackBatches(stream, header.processCode, [header.batchNo]) }

/**
 * Consumers of the product batches stream: persist a batch in one transaction, then ack.
 * A batch that fails stays pending and is claimed again after CLAIM_IDLE_MS; after
 * MAX_DELIVERIES failures while the database is up it goes to the dead-letter stream and its
 * products are recorded as failed on the load. While the database is down nothing is acked
 * and nothing is dead-lettered, and a delivery that met the outage is given back uncounted: the
 * consumer waits for the database.
 */
export const BatchWorkers = Layer.effectDiscard(
  Effect.gen(function*() {
    const queue = yield* StreamQueue
    const products = yield* ProductRepository
    const loads = yield* LoadRepository
    const config = yield* UploadConfig
    const pacing = yield* BatchPacing
    const { batchesStream: stream, consumerGroup: group } = config

    // Interruptible although handling is not: shutdown must not wait for the database to come back.
    // The batch is not acked, so it is redelivered.
    const waitForDatabase = Database.ready.pipe(
      Effect.retry(Schedule.min([Schedule.exponential("100 millis"), Schedule.spaced("5 seconds")])),
      Effect.orDie,
      Effect.interruptible
    )

    // A dead letter holds its whole batch (about 450 KB at 250 products): a feed failing whole would fill Redis.
    const keepDead = config.deadLetterMaxEntries === 0 ? {} : { keepDead: config.deadLetterMaxEntries }

    /** `dead`: whose batch it was, when that can be read: its products are failed on their load, so that the load ends. */
    const deadLetter = (delivery: Delivery, dead: RefusedBatch | null, reason: string) =>
      Effect.gen(function*() {
        if (dead !== null) {
          yield* loads.recordDeadBatch(dead.header.processCode, dead.header.batchNo, dead.skus.map((sku) => ({ sku })), reason)
        }
        yield* queue.deadLetter(stream, group, delivery, reason, { ...workDone(stream, dead?.header ?? null), ...keepDead })
        yield* Effect.logWarning(`batch ${delivery.id} dead-lettered after ${delivery.deliveries} deliveries: ${reason}`)
      })

    /**
     * Persisting in a fiber of its own, uninterruptible, which the timeout stops waiting for without
     * interrupting it: an answer that comes late only finishes a transaction nobody waits for (the batch,
     * not acked, is delivered again), while interrupting it could wait on the hung connection itself.
     */
    const persisting = (entry: BatchEntry) =>
      Effect.flatMap(
        Effect.forkDetach(Effect.uninterruptible(
          (entry._tag === "Json" ? products.persistBatch(entry.batch) : products.persistEncodedBatch(entry.batch)).pipe(persistSpan(entry))
        )),
        Fiber.join
      )

    /**
     * A batch not persisted stays pending and is delivered again; after MAX_DELIVERIES while the database
     * is up it goes to the dead letters. A defect counts as a failure too: a batch that crashes the code
     * persisting it must end in the dead letters, not be redelivered for ever with its load never final.
     */
    const notPersisted = (consumer: string, delivery: Delivery, batch: BatchEntry, cause: Cause.Cause<StoreError>) =>
      Effect.gen(function*() {
        const reason = reasonOf(cause)
        const databaseUp = Result.isSuccess(yield* Effect.result(Database.ready))
        if (databaseUp && delivery.deliveries >= config.maxDeliveries) {
          return yield* deadLetter(delivery, deadBatchOf(batch), `persisting failed ${delivery.deliveries} times: ${reason}`)
        }
        yield* Effect.logWarning(`batch ${delivery.id} not persisted (delivery ${delivery.deliveries}): ${reason}; left pending`, cause)
        if (!databaseUp) {
          // The outage's deliveries must not bring the batch nearer to the dead letters.
          yield* queue.uncountDelivery(stream, group, consumer, delivery).pipe(
            Effect.catch((queueError) => Effect.logWarning(`delivery ${delivery.deliveries} of batch ${delivery.id} still counts`, queueError))
          )
          yield* waitForDatabase
        }
      })

    const handle = (consumer: string) => (delivery: Delivery) =>
      Effect.suspend(() => Result.match(decodeBatchEntry(delivery.payload), {
        onFailure: (message) => deadLetter(delivery, Option.getOrNull(refusedBatchOf(delivery.payload)), `undecodable batch: ${message}`),
        onSuccess: (batch) =>
          persisting(batch).pipe(
            // Handling is uninterruptible so that shutdown lets a batch finish; a hung database must not hold it forever.
            Effect.timeoutOrElse({
              duration: config.persistTimeoutMs,
              orElse: () => Effect.fail(new StoreError({ operation: "persistBatch", message: `no answer within ${config.persistTimeoutMs} ms` }))
            }),
            Effect.matchCauseEffect({
              // Only a commit is acked; a failed ack leaves the batch pending, and its replay changes nothing.
              onSuccess: () => queue.ack(stream, group, [delivery.id], workDone(stream, headerOf(batch))),
              onFailure: (cause) => Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : notPersisted(consumer, delivery, batch, cause)
            })
          )
      })).pipe(Effect.uninterruptible, QueueTracing.consumeSpan("batch.consume", stream, delivery))

    /**
     * An entry whose handling fails (its ack or its dead-lettering met a fault) stays pending and is
     * claimed again; the entries read or claimed with it are still handled.
     */
    const handleEach = (consumer: string) =>
      Effect.forEach((delivery: Delivery) =>
        handle(consumer)(delivery).pipe(
          Effect.catchCause((cause) =>
            Cause.hasInterruptsOnly(cause)
              ? Effect.failCause(cause)
              : Effect.logError(`batch ${delivery.id}: handling failed; left pending (delivery ${delivery.deliveries})`, cause)
          )
        ), { discard: true })

    // A group that vanished after this process saw it went with its stream: Redis lost its data.
    let groupSeen = false
    const ensureGroup = Effect.flatMap(queue.ensureGroup(stream, group), (created) => {
      const lost = created && groupSeen
      groupSeen = true
      return lost
        ? Effect.logError(
          `the stream ${stream} and its consumer group were gone and have been created again: the queue (${queue.kind}) lost its data` +
            `${queue.kind === "redis" ? " (Redis restarted without appendonly?)" : ""}; loads whose batches went with it are failed by the reconciler`
        )
        : Effect.void
    })

    /**
     * The in-process queue dies with the process: shutdown lets the consumers persist what was
     * accepted, up to QUEUE_DRAIN_TIMEOUT_MS. What is left then is lost, and its loads are failed by
     * the reconciler when the server starts again.
     */
    const drain = Effect.gen(function*() {
      const backlog = yield* queue.length(stream)
      if (backlog === 0) return
      yield* Effect.logInfo(`shutdown: persisting the ${backlog} batches left in the in-process queue (at most ${config.queueDrainTimeoutMs} ms)`)
      const left = yield* queue.length(stream).pipe(
        Effect.repeat({ schedule: Schedule.spaced("100 millis"), until: (n) => n === 0 }),
        Effect.as(0),
        Effect.timeoutOrElse({ duration: config.queueDrainTimeoutMs, orElse: () => queue.length(stream) })
      )
      yield* left === 0
        ? Effect.logInfo("shutdown: the in-process queue is drained")
        : Effect.logError(
          `shutdown: ${left} batches of the in-process queue were not persisted within QUEUE_DRAIN_TIMEOUT_MS and are lost; ` +
            "their loads end FAILED when the server starts again"
        )
    }).pipe(Effect.catch((error) => Effect.logError("shutdown: could not drain the in-process queue", error)))

    /** Shutdown says what the workers leave: a durable queue keeps it for the next worker, the in-process one loses it. */
    const leftOnQueue = queue.length(stream).pipe(
      Effect.flatMap((left) =>
        Effect.logInfo(
          queue.processLocal
            ? `shutdown: workers stopped; ${left} batches left in the in-process queue`
            : `shutdown: workers stopped; ${left} batches wait on ${stream} (${queue.kind}) for the next worker`
        ).pipe(
          Effect.annotateLogs({ event: "shutdown.queue", stream, batches: left })
        )
      ),
      Effect.catch((error) => Effect.logWarning(`shutdown: could not tell what waits on ${stream}`, error))
    )

    const consume = (consumer: string) =>
      Effect.andThen(
        ensureGroup,
        queue.read(stream, group, consumer, { count: 1, blockMs: 2_000 }).pipe(
          untraced,
          // Paced between receiving a batch and persisting it: an empty read (the stream idle) is not.
          Effect.tap((deliveries) => (deliveries.length === 0 ? Effect.void : pacing.beforeBatch)),
          Effect.flatMap(handleEach(consumer)),
          Effect.forever
        )
      )

    const reclaim = (consumer: string) =>
      Effect.andThen(ensureGroup, queue.claimStale(stream, group, consumer, { minIdleMs: config.claimIdleMs, count: 10 }).pipe(
        untraced,
        Effect.flatMap(handleEach(consumer))
      )).pipe(Effect.repeat(Schedule.spaced(Math.max(100, Math.floor(config.claimIdleMs / 2)))))

    // Added before the consumers are forked, so it runs after they have stopped (and after the drain).
    yield* Effect.addFinalizer(() => leftOnQueue)
    for (let i = 0; i < config.workers; i++) {
      const consumer = `${config.consumerPrefix}-${i}`
      yield* Effect.forkScoped(restartAfterFailure(`consumer ${consumer}`, consume(consumer)))
    }
    yield* Effect.forkScoped(restartAfterFailure("reclaimer", reclaim(`${config.consumerPrefix}-reclaimer`)))
    // Added after the consumers were forked, so it runs before they are interrupted.
    if (queue.processLocal) yield* Effect.addFinalizer(() => drain)
  })
)
