import { describe, expect, layer } from "@effect/vitest"
import { MemoryStreamQueue, QueueError, StreamQueue } from "@retail/queue"
import { LoadIntake, LoadOwner, LoadReconciler, ProductPublisher, trackBatches, UploadConfig } from "@retail/service-upload"
import { Database, LoadOwnership, LoadRepository, StoreError } from "@retail/store"
import { sampleProducts } from "@retail/testkit"
import { Effect, Layer, Option, Schedule } from "effect"
import { SqlClient } from "effect/sql"

/** Loads of these companies cannot be marked PROCESSING: the database failed at that moment. */
const unmarkable = new Set<string>()
/** Loads of these companies cannot be marked FAILED, nor published: the database and the queue are both down for them. */
const outage = new Set<string>()

const Store = Layer.mergeAll(
  LoadOwnership.layer,
  Layer.effect(
    LoadRepository,
    Effect.map(LoadRepository, (real) =>
      LoadRepository.of({
        ...real,
        markProcessing: (processCode) =>
          Effect.flatMap(real.find(processCode), (load) =>
            Option.isSome(load) && unmarkable.has(load.value.company)
              ? Effect.fail(new StoreError({ operation: "markProcessing", message: "connection reset" }))
              : real.markProcessing(processCode)),
        markFailed: (processCode, reason) =>
          Effect.flatMap(real.find(processCode), (load) =>
            Option.isSome(load) && outage.has(load.value.company)
              ? Effect.fail(new StoreError({ operation: "markFailed", message: "connection refused" }))
              : real.markFailed(processCode, reason))
      }))
  ).pipe(Layer.provide(LoadRepository.layer))
).pipe(Layer.provideMerge(Database.layer({ url: Option.none(), dataDir: Database.IN_MEMORY, poolSize: 1 })))

// A load abandoned by its request is judged once LOAD_LEASE_MS has passed, as a dead owner's.
const config = UploadConfig.test({ reconcileIntervalMs: 100, loadLeaseMs: 3_000 })
const Queue = Layer.effect(
  StreamQueue,
  Effect.map(MemoryStreamQueue.make, (queue) =>
    StreamQueue.of({
      ...queue,
      publish: (stream, payloads, options) =>
        payloads.some((payload) => {
          const text = typeof payload === "string" ? payload : Buffer.from(payload).toString("utf8")
          return [...outage].some((company) => text.includes(`"company":"${company}"`))
        })
          ? Effect.fail(new QueueError({ operation: "publish", message: "connection refused" }))
          : queue.publish(stream, payloads, options)
    }))
)
const Base = Layer.mergeAll(Store, Queue, config, LoadOwner.test())
const Reconciling = Layer.mergeAll(LoadReconciler.layer, LoadIntake.layer.pipe(Layer.provide(ProductPublisher.layer))).pipe(Layer.provideMerge(Base))

const statusOf = (processCode: string) =>
  Effect.flatMap(LoadRepository, (loads) => loads.find(processCode)).pipe(Effect.map(Option.map((load) => [load.status, load.failureReason ?? null] as const)))

const eventually = <A>(read: Effect.Effect<A, unknown, LoadRepository>, until: (a: A) => boolean) =>
  read.pipe(
    Effect.filterOrFail(until, () => "not yet"),
    Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.upTo({ duration: "10 seconds" })))
  )

/**
 * Until a whole reconciler pass ran after now: each pass renews this process's heartbeat first, so
 * the second renewal seen means the pass that began with the first one has ended.
 */
const aWholePass = Effect.gen(function*() {
  const owner = yield* LoadOwner
  const sql = yield* SqlClient.SqlClient
  const heartbeat = sql<{ readonly at: string }>`SELECT heartbeat_at::text AS at FROM server_instances WHERE id = ${owner.id}`.pipe(
    Effect.map((rows) => rows[0]?.at ?? "")
  )
  let last = yield* heartbeat
  for (let renewals = 0; renewals < 2;) {
    yield* Effect.sleep("20 millis")
    const now = yield* heartbeat
    if (now !== last) renewals++
    last = now
  }
})

describe("LoadReconciler: this process's own loads", () => {
  layer(Reconciling, { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("a load being received by this process is left alone while its request runs, and failed once the request abandoned it", () =>
      Effect.gen(function*() {
        const loads = yield* LoadRepository
        const owner = yield* LoadOwner
        const { batchesStream } = yield* UploadConfig
        const { processCode } = yield* loads.create({
          processCode: crypto.randomUUID(), company: "ACME", source: "HANDLE_JSON", received: 0, accepted: 0, failed: 0, errors: [],
          receiving: true, owner: owner.id, queue: batchesStream
        })
        yield* aWholePass
        expect(yield* statusOf(processCode)).toEqual(Option.some(["RECEIVED", null]))

        yield* LoadOwner.abandon(owner, processCode)
        // Not before LOAD_LEASE_MS: a publish cut off on this side may still land.
        yield* aWholePass
        expect(yield* statusOf(processCode)).toEqual(Option.some(["RECEIVED", null]))
        const [status, reason] = Option.getOrThrow(yield* eventually(statusOf(processCode), (s) => Option.exists(s, ([status]) => status === "FAILED")))
        expect(status).toBe("FAILED")
        expect(reason).toMatch(/^Publishing this load stopped before all of it was published/)
        // Settled: forgotten by the next pass.
        yield* eventually(Effect.sync(() => owner.abandoned.since(processCode)), (since) => since === undefined)
      }))

    it.effect("an abandoned request body's load is PROCESSING when its batches are on the queue, FAILED when none is", () =>
      Effect.gen(function*() {
        const loads = yield* LoadRepository
        const queue = yield* StreamQueue
        const owner = yield* LoadOwner
        const { batchesStream } = yield* UploadConfig
        const create = () => loads.create({
          processCode: crypto.randomUUID(), company: "ACME", source: "LOAD_PRODUCTS", received: 2, accepted: 2, failed: 0, errors: [],
          owner: owner.id, batches: 1, queue: batchesStream
        })
        const published = yield* create()
        yield* queue.publish(batchesStream, ["a batch"], { track: trackBatches(batchesStream, published.processCode, [0]) })
        const unpublished = yield* create()
        yield* aWholePass
        // Not abandoned: RECEIVED is its request still publishing.
        expect(yield* statusOf(published.processCode)).toEqual(Option.some(["RECEIVED", null]))

        yield* LoadOwner.abandon(owner, published.processCode)
        yield* LoadOwner.abandon(owner, unpublished.processCode)
        yield* eventually(statusOf(published.processCode), (s) => Option.exists(s, ([status]) => status === "PROCESSING"))
        const [, reason] = Option.getOrThrow(yield* eventually(statusOf(unpublished.processCode), (s) => Option.exists(s, ([status]) => status === "FAILED")))
        expect(reason).toBe("Publishing this load failed; nothing of it was stored. Send the load again.")
      }))

    it.effect("/load-products published but not marked PROCESSING (the database failed at that moment) is marked so by the reconciler", () =>
      Effect.gen(function*() {
        const intake = yield* LoadIntake
        const company = `UNMARKED-${crypto.randomUUID().slice(0, 8)}`
        unmarkable.add(company)
        const answer = yield* intake.accept({ company, source: "LOAD_PRODUCTS", products: sampleProducts(3, { prefix: "UNM", company }) })
        expect(yield* statusOf(answer.processCode)).toEqual(Option.some(["RECEIVED", null]))
        unmarkable.delete(company)
        yield* eventually(statusOf(answer.processCode), (s) => Option.exists(s, ([status]) => status === "PROCESSING"))
      }))

    it.effect("/load-products whose publish failed and whose FAILED mark failed too says so, and is FAILED by the reconciler once the database is back", () =>
      Effect.gen(function*() {
        const intake = yield* LoadIntake
        const loads = yield* LoadRepository
        const company = `OUTAGE-${crypto.randomUUID().slice(0, 8)}`
        outage.add(company)
        const error = yield* Effect.flip(intake.accept({ company, source: "LOAD_PRODUCTS", products: sampleProducts(3, { prefix: "OUT", company }) }))
        expect(error._tag).toBe("PublishFailed")
        expect(error.message).toMatch(/could not be marked FAILED \(the database is unavailable too\); the server settles it once the database is back/)
        const [processCode] = /[0-9a-f-]{36}/.exec(error.message) ?? []
        if (processCode === undefined) return expect.fail("the answer names the load")
        expect(yield* statusOf(processCode)).toEqual(Option.some(["RECEIVED", null]))
        outage.delete(company)
        const [, reason] = Option.getOrThrow(yield* eventually(statusOf(processCode), (s) => Option.exists(s, ([status]) => status === "FAILED")))
        expect(reason).toBe("Publishing this load failed; nothing of it was stored. Send the load again.")
        expect(Option.getOrThrow(yield* loads.find(processCode)).totals).toMatchObject({ accepted: 3, persisted: 0 })
      }))
  })
})
