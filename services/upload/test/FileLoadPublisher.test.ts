import { describe, expect, layer } from "@effect/vitest"
import { LoadSummary } from "@retail/domain"
import { MemoryStreamQueue } from "@retail/queue"
import { LoadOwner, ProductPublisher, UploadConfig } from "@retail/service-upload"
import { Database, LoadRepository, StoreError } from "@retail/store"
import { StorageFailed } from "@retail/api"
import { type Cause, Duration, Effect, Fiber, Layer, Option, Queue, Stream } from "effect"
import { TestClock } from "effect/testing"
import { setTimeout as sleep } from "node:timers/promises"
import { FileLoadPublisher } from "../src/publish/FileLoadPublisher.ts"
import { ProcessCodes } from "../src/publish/ProcessCodes.ts"
import type { SpoolRecord } from "../src/spool/LoadSpool.ts"

/** What the publisher commits to the load's counts, call by call. */
const committed: Array<{ readonly received: number; readonly accepted: number; readonly failed: number }> = []

/** Loads that cannot be marked FAILED: the database is down at that moment. */
const unfailable = new Set<string>()

/** The real store, recording each `addCounts`. */
const CountingLoads = Layer.effect(
  LoadRepository,
  Effect.map(LoadRepository, (real) =>
    LoadRepository.of({
      ...real,
      addCounts: (processCode, counts) => Effect.andThen(Effect.sync(() => committed.push(counts)), real.addCounts(processCode, counts)),
      markFailed: (processCode, reason) =>
        unfailable.has(processCode)
          ? Effect.fail(new StoreError({ operation: "markFailed", message: "connection refused" }))
          : real.markFailed(processCode, reason)
    }))
).pipe(Layer.provide(LoadRepository.layer))

const Publisher = FileLoadPublisher.layer.pipe(
  Layer.provide(ProductPublisher.layer),
  Layer.provideMerge(CountingLoads),
  Layer.provideMerge(Layer.mergeAll(MemoryStreamQueue.layer, UploadConfig.test(), LoadOwner.test())),
  Layer.provide(Database.layer({ url: Option.none(), dataDir: Database.IN_MEMORY, poolSize: 1 }))
)

/** Waits, in real time (the test's clock stands still), until the publisher has committed `n` times. */
const commitsReach = (n: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < 500 && committed.length < n; i++) yield* Effect.promise(() => sleep(10))
    expect(committed).toHaveLength(n)
  })

/** A spool whose records the test hands over one by one, so that it sees the publisher between groups. */
const handFedSpool = Effect.map(Queue.make<SpoolRecord, StorageFailed | Cause.Done>(), (queue) => ({
  records: () => Stream.fromQueue(queue),
  batches: (n: number) =>
    Effect.forEach(Array.from({ length: n }), () => Queue.offer(queue, { _tag: "Batch", count: 10, productsJson: new TextEncoder().encode("[]") }), {
      discard: true
    }),
  errors: (json: string) => Queue.offer(queue, { _tag: "Errors", json }),
  fail: (error: StorageFailed) => Queue.fail(queue, error),
  end: Queue.end(queue)
}))

describe("FileLoadPublisher", () => {
  layer(Publisher, { timeout: 60_000 })((it) => {
    it.effect("commits a load's counts with its first group of batches, then at most every 100 ms, and at its end", () =>
      Effect.gen(function*() {
        const publisher = yield* FileLoadPublisher
        const spool = yield* handFedSpool
        const totals = { total: 352, accepted: 350, failed: 2, firstErrors: [] }
        const publishing = yield* publisher.publish({ company: "ACME", source: "HANDLE_JSON", spool, totals }).pipe(Effect.forkChild)

        yield* spool.batches(8)
        yield* commitsReach(1)
        expect(committed[0]).toEqual({ received: 80, accepted: 80, failed: 0 })

        // Two more groups within the same 100 ms: published, not committed yet.
        yield* spool.batches(16)
        yield* TestClock.adjust(Duration.millis(99))
        yield* Effect.promise(() => sleep(200))
        expect(committed).toHaveLength(1)

        // The next group after 100 ms commits all three.
        yield* TestClock.adjust(Duration.millis(1))
        yield* spool.batches(8)
        yield* commitsReach(2)
        expect(committed[1]).toEqual({ received: 240, accepted: 240, failed: 0 })

        // The end commits what is left, even within 100 ms.
        yield* spool.batches(3)
        yield* spool.errors(JSON.stringify([{ sku: "S1", error: "bad" }, { sku: "S2", error: "bad" }]))
        yield* spool.end
        const answer = yield* Fiber.join(publishing)
        expect(committed.slice(2)).toEqual([{ received: 32, accepted: 30, failed: 2 }])
        expect(answer).toBeInstanceOf(LoadSummary)
        expect(answer).toMatchObject({ total: 352, processing: 350, failed: 2 })

        const loads = yield* LoadRepository
        const view = Option.getOrThrow(yield* loads.find(answer.processCode))
        expect(view.totals).toMatchObject({ received: 352, accepted: 350, failed: 2 })
      }))

    it.effect("records the load under the process code ProcessCodes gives", () =>
      Effect.gen(function*() {
        const processCode = "0b8e6c1e-5f0a-4c57-9a39-6a1f0c2b7d11"
        const publisher = yield* FileLoadPublisher
        const spool = yield* handFedSpool
        const publishing = yield* publisher.publish({ company: "ACME", source: "HANDLE_JSON", spool, totals: { total: 0, accepted: 0, failed: 0, firstErrors: [] } }).pipe(
          Effect.provideService(ProcessCodes, { next: Effect.succeed(processCode) }),
          Effect.forkChild
        )
        yield* spool.end
        const answer = yield* Fiber.join(publishing)
        expect(answer.processCode).toBe(processCode)
        const loads = yield* LoadRepository
        expect(Option.getOrThrow(yield* loads.find(processCode)).company).toBe("ACME")
      }))

    it.effect("a load whose publishing failed and could not be marked FAILED is left to the reconciler (abandoned), not in progress for ever", () =>
      Effect.gen(function*() {
        const processCode = crypto.randomUUID()
        unfailable.add(processCode)
        const publisher = yield* FileLoadPublisher
        const owner = yield* LoadOwner
        const spool = yield* handFedSpool
        const publishing = yield* publisher.publish({ company: "ACME", source: "HANDLE_JSON", spool, totals: { total: 10, accepted: 10, failed: 0, firstErrors: [] } }).pipe(
          Effect.provideService(ProcessCodes, { next: Effect.succeed(processCode) }),
          Effect.forkChild
        )
        yield* spool.batches(1)
        yield* spool.fail(new StorageFailed({ message: "the spool's disk failed" }))
        expect(yield* Effect.flip(Fiber.join(publishing))).toBeInstanceOf(StorageFailed)
        const loads = yield* LoadRepository
        expect(Option.getOrThrow(yield* loads.find(processCode)).status).not.toMatch(/^(COMPLETED|FAILED)/)
        expect(owner.abandoned.since(processCode)).toBeTypeOf("number")
      }))
  })
})
