/**
 * The behaviour every StreamQueue implementation owes its callers. Tests run
 * on the live clock because the Redis implementation measures idle time on
 * the server; stream names are unique per test so a shared server is fine.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Array as Arr, Chunk, Clock, Effect, Fiber, ManagedRuntime, Ref } from "effect"
import type { Layer, Scope } from "effect"
import { QueueError, StreamQueue } from "../src/index.ts"

export interface ContractOptions {
  readonly name: string
  readonly layer: Layer.Layer<StreamQueue, QueueError>
  /** Deletes the keys a test used (its streams and their dead-letter streams). */
  readonly cleanup?: (keys: ReadonlyArray<string>) => Effect.Effect<void>
}

const payloads = (prefix: string, n: number) => Arr.makeBy(n, (i) => `${prefix}-${i}`)

const elapsed = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const start = yield* Clock.currentTimeMillis
    const result = yield* self
    return [result, (yield* Clock.currentTimeMillis) - start] as const
  })

export const streamQueueContract = (options: ContractOptions): void => {
  const freshStream = Effect.gen(function*() {
    const name = `test:queue:${crypto.randomUUID()}`
    const cleanup = options.cleanup
    if (cleanup !== undefined) yield* Effect.addFinalizer(() => cleanup([name, `${name}:dead`]))
    return name
  })

  // One layer for the whole suite, as a service would hold it. (@effect/vitest's `layer` would
  // also do, but it rewires the shared `it` for every test registered after it in the file.)
  const runtime = ManagedRuntime.make(options.layer)
  const test = <E>(name: string, body: () => Effect.Effect<void, E, StreamQueue | Scope.Scope>) =>
    it.live(name, () => Effect.flatMap(runtime.contextEffect, (context) => Effect.provide(body(), context)))

  describe(`StreamQueue contract: ${options.name}`, () => {
    afterAll(() => runtime.dispose())

    test("ping succeeds", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        yield* queue.ping
      }))

    test("groupStats: pending, never-delivered lag and the oldest pending entry's idle time; zeros for a missing group", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const stream = yield* freshStream
        expect(yield* queue.groupStats(stream, "g")).toEqual({ pending: 0, lag: 0, oldestPendingMs: 0 })
        yield* queue.ensureGroup(stream, "g")
        const ids = yield* queue.publish(stream, ["a", "b", "c", "d"])
        yield* queue.read(stream, "g", "c1", { count: 3, blockMs: 0 })
        yield* queue.ack(stream, "g", [ids[0]!])
        yield* Effect.sleep("30 millis")
        const stats = yield* queue.groupStats(stream, "g")
        expect({ pending: stats.pending, lag: stats.lag }).toEqual({ pending: 2, lag: 1 })
        expect(stats.oldestPendingMs).toBeGreaterThanOrEqual(20)
        expect(stats.oldestPendingMs).toBeLessThan(10_000)
      }))

    test("publish then read returns the payloads in order, delivered once", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const stream = yield* freshStream
        yield* queue.ensureGroup(stream, "g")
        const ids = yield* queue.publish(stream, ["a", "b", "c"])
        expect(ids).toHaveLength(3)
        const read = yield* queue.read(stream, "g", "c1", { count: 10, blockMs: 0 })
        expect(read).toEqual([
          { id: ids[0], payload: "a", deliveries: 1 },
          { id: ids[1], payload: "b", deliveries: 1 },
          { id: ids[2], payload: "c", deliveries: 1 }
        ])
        expect(yield* queue.read(stream, "g", "c1", { count: 10, blockMs: 0 })).toEqual([])
      }))

    test("a payload given as UTF-8 bytes is read back as its text", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const stream = yield* freshStream
        const text = "{\"name\":\"Sartén € 𝄞\"}"
        // A view into a larger buffer: only its own bytes are the payload.
        const bytes = new TextEncoder().encode(`xx${text}yy`)
        yield* queue.publish(stream, [bytes.subarray(2, bytes.length - 2), "plain"])
        const read = yield* queue.readAfter(stream, "0", { count: 10, blockMs: 0 })
        expect(read.map((entry) => entry.payload)).toEqual([text, "plain"])
      }))

    test("an entry published with a traceparent carries it to read and to claimStale; one without carries none", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const stream = yield* freshStream
        const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        yield* queue.ensureGroup(stream, "g")
        yield* queue.publish(stream, ["traced-0", "traced-1"], { traceparent })
        yield* queue.publish(stream, ["plain"])
        const read = yield* queue.read(stream, "g", "c1", { count: 10, blockMs: 0 })
        expect(read.map((d) => [d.payload, d.traceparent])).toEqual([["traced-0", traceparent], ["traced-1", traceparent], ["plain", undefined]])
        expect(read[2]).not.toHaveProperty("traceparent")
        const claimed = yield* queue.claimStale(stream, "g", "c2", { minIdleMs: 0, count: 10 })
        expect(claimed.map((d) => d.traceparent)).toEqual([traceparent, traceparent, undefined])
      }))

    test("publishing nothing appends nothing", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const stream = yield* freshStream
        expect(yield* queue.publish(stream, [])).toEqual([])
        expect(yield* queue.readAfter(stream, "0", { count: 10, blockMs: 0 })).toEqual([])
      }))

    test("read respects count and continues where it stopped", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const stream = yield* freshStream
        yield* queue.ensureGroup(stream, "g")
        yield* queue.publish(stream, payloads("p", 5))
        const first = yield* queue.read(stream, "g", "c1", { count: 2, blockMs: 0 })
        const rest = yield* queue.read(stream, "g", "c1", { count: 10, blockMs: 0 })
        expect(first.map((d) => d.payload)).toEqual(["p-0", "p-1"])
        expect(rest.map((d) => d.payload)).toEqual(["p-2", "p-3", "p-4"])
      }))

    test("ensureGroup is idempotent and reads from the start of the stream", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const stream = yield* freshStream
        yield* queue.publish(stream, ["early"])
        yield* queue.ensureGroup(stream, "g")
        const read = yield* queue.read(stream, "g", "c1", { count: 10, blockMs: 0 })
        yield* queue.ensureGroup(stream, "g")
        expect(read.map((d) => d.payload)).toEqual(["early"])
        // Recreating must not rewind the group.
        expect(yield* queue.read(stream, "g", "c1", { count: 10, blockMs: 0 })).toEqual([])
      }))

    test("ensureGroup tells whether it created the group", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const stream = yield* freshStream
        expect(yield* queue.ensureGroup(stream, "g")).toBe(true)
        expect(yield* queue.ensureGroup(stream, "g")).toBe(false)
      }))

    test("tracked members follow their entries: added with the append, removed with the ack or dead letter", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const stream = yield* freshStream
        const set = `${stream}:tracked`
        const cleanup = options.cleanup
        if (cleanup !== undefined) yield* Effect.addFinalizer(() => cleanup([set]))
        yield* queue.ensureGroup(stream, "g")
        expect(yield* queue.tracked(set)).toEqual([])
        yield* queue.publish(stream, ["b0", "b1", "b2"], { track: { set, members: ["0", "1", "2"] } })
        // One entry alone is tracked too.
        yield* queue.publish(stream, ["b3"], { track: { set, members: ["3"] } })
        expect([...(yield* queue.tracked(set))].sort()).toEqual(["0", "1", "2", "3"])
        expect(yield* queue.length(stream)).toBe(4)
        const read = yield* queue.read(stream, "g", "c1", { count: 10, blockMs: 0 })
        const [first, second, third] = read
        if (first === undefined || second === undefined || third === undefined) return expect.fail("four entries expected")
        yield* queue.ack(stream, "g", [first.id], { deleteEntries: true, untrack: { set, members: ["0"] } })
        yield* queue.ack(stream, "g", [second.id], { untrack: { set, members: ["1"] } })
        yield* queue.deadLetter(stream, "g", third, "bad", { deleteEntries: true, untrack: { set, members: ["2"] } })
        expect(yield* queue.tracked(set)).toEqual(["3"])
        // Acked but not deleted still counts as an entry of the stream.
        expect(yield* queue.length(stream)).toBe(2)
        expect(yield* queue.length(`${stream}:never`)).toBe(0)
      }))

    test("durability says whether appends survive a restart", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const durability = yield* queue.durability
        expect(durability.description.length).toBeGreaterThan(0)
        if (queue.processLocal) expect(durability.durable).toBe(false)
      }))

    test("reading a group that does not exist fails with QueueError", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const stream = yield* freshStream
        const error = yield* Effect.flip(queue.read(stream, "missing", "c1", { count: 1, blockMs: 0 }))
        expect(error).toBeInstanceOf(QueueError)
        expect(error.operation).toBe("read")
        const claimError = yield* Effect.flip(queue.claimStale(stream, "missing", "c1", { minIdleMs: 0, count: 1 }))
        expect(claimError.operation).toBe("claimStale")
      }))

    test("unacked entries are not read again but are claimed once idle, counting deliveries", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const stream = yield* freshStream
        yield* queue.ensureGroup(stream, "g")
        const ids = yield* queue.publish(stream, ["x", "y"])
        yield* queue.read(stream, "g", "crashed", { count: 10, blockMs: 0 })

        expect(yield* queue.read(stream, "g", "crashed", { count: 10, blockMs: 0 })).toEqual([])
        expect(yield* queue.read(stream, "g", "other", { count: 10, blockMs: 0 })).toEqual([])
        expect(yield* queue.claimStale(stream, "g", "rescuer", { minIdleMs: 400, count: 10 })).toEqual([])

        yield* Effect.sleep("500 millis")
        const claimed = yield* queue.claimStale(stream, "g", "rescuer", { minIdleMs: 400, count: 10 })
        expect(claimed).toEqual([
          { id: ids[0], payload: "x", deliveries: 2 },
          { id: ids[1], payload: "y", deliveries: 2 }
        ])
        // Claiming resets the idle time.
        expect(yield* queue.claimStale(stream, "g", "another", { minIdleMs: 400, count: 10 })).toEqual([])
        const again = yield* queue.claimStale(stream, "g", "another", { minIdleMs: 0, count: 1 })
        expect(again).toEqual([{ id: ids[0], payload: "x", deliveries: 3 }])
      }))

    test("an uncounted delivery keeps the entry pending, idle from now, and is not counted when it is claimed again", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const stream = yield* freshStream
        yield* queue.ensureGroup(stream, "g")
        const [id] = yield* queue.publish(stream, ["x", "y"])
        const [first] = yield* queue.read(stream, "g", "c1", { count: 1, blockMs: 0 })
        const [second] = yield* queue.claimStale(stream, "g", "c2", { minIdleMs: 0, count: 1 })
        expect([first?.deliveries, second?.deliveries]).toEqual([1, 2])

        yield* queue.uncountDelivery(stream, "g", "c2", second!)
        expect(yield* queue.claimStale(stream, "g", "c3", { minIdleMs: 300, count: 10 })).toEqual([])
        yield* Effect.sleep("400 millis")
        expect(yield* queue.claimStale(stream, "g", "c3", { minIdleMs: 300, count: 10 })).toEqual([{ id, payload: "x", deliveries: 2 }])

        // An entry no longer pending is left alone: acked entries are not delivered again.
        yield* queue.ack(stream, "g", [id!])
        yield* queue.uncountDelivery(stream, "g", "c3", { id: id!, payload: "x", deliveries: 2 })
        expect(yield* queue.claimStale(stream, "g", "c4", { minIdleMs: 0, count: 10 })).toEqual([])
      }))

    test("claimStale finds idle entries behind many fresh ones and respects count", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const stream = yield* freshStream
        yield* queue.ensureGroup(stream, "g")
        yield* queue.publish(stream, payloads("p", 50))
        yield* queue.read(stream, "g", "c1", { count: 50, blockMs: 0 })
        yield* Effect.sleep("400 millis")
        // Refresh the 45 oldest: the idle ones now sit behind them in the pending list.
        const refreshed = yield* queue.claimStale(stream, "g", "c1", { minIdleMs: 0, count: 45 })
        expect(refreshed).toHaveLength(45)
        const one = yield* queue.claimStale(stream, "g", "c2", { minIdleMs: 300, count: 1 })
        expect(one.map((d) => [d.payload, d.deliveries])).toEqual([["p-45", 2]])
        const rest = yield* queue.claimStale(stream, "g", "c2", { minIdleMs: 300, count: 10 })
        expect(rest.map((d) => d.payload)).toEqual(["p-46", "p-47", "p-48", "p-49"])
      }))

    test("acked entries are never delivered again", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const stream = yield* freshStream
        yield* queue.ensureGroup(stream, "g")
        yield* queue.publish(stream, ["a", "b", "c"])
        const read = yield* queue.read(stream, "g", "c1", { count: 10, blockMs: 0 })
        yield* queue.ack(stream, "g", read.filter((d) => d.payload !== "b").map((d) => d.id))
        yield* queue.ack(stream, "g", [])
        const claimed = yield* queue.claimStale(stream, "g", "c2", { minIdleMs: 0, count: 10 })
        expect(claimed.map((d) => d.payload)).toEqual(["b"])
        yield* queue.ack(stream, "g", claimed.map((d) => d.id))
        expect(yield* queue.claimStale(stream, "g", "c2", { minIdleMs: 0, count: 10 })).toEqual([])
        expect(yield* queue.read(stream, "g", "c1", { count: 10, blockMs: 0 })).toEqual([])
      }))

    test("ack with deleteEntries removes the entries; lastId still names the newest id ever published", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const stream = yield* freshStream
        yield* queue.ensureGroup(stream, "g")
        const ids = yield* queue.publish(stream, ["a", "b", "c"])
        const read = yield* queue.read(stream, "g", "c1", { count: 10, blockMs: 0 })
        yield* queue.ack(stream, "g", read.filter((d) => d.payload !== "b").map((d) => d.id), { deleteEntries: true })
        expect(yield* queue.readAfter(stream, "0", { count: 10, blockMs: 0 })).toEqual([{ id: ids[1], payload: "b" }])
        yield* queue.ack(stream, "g", [ids[1]!], { deleteEntries: true })
        expect(yield* queue.readAfter(stream, "0", { count: 10, blockMs: 0 })).toEqual([])
        expect(yield* queue.lastId(stream)).toBe(ids[2])
        const [next] = yield* queue.publish(stream, ["d"])
        expect(yield* queue.read(stream, "g", "c1", { count: 10, blockMs: 0 })).toEqual([{ id: next, payload: "d", deliveries: 1 }])
      }))

    test("two consumers of one group split the entries without duplicates", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const stream = yield* freshStream
        yield* queue.ensureGroup(stream, "g")
        const ids = yield* queue.publish(stream, payloads("p", 10))
        const a = yield* queue.read(stream, "g", "a", { count: 4, blockMs: 0 })
        const b = yield* queue.read(stream, "g", "b", { count: 100, blockMs: 0 })
        expect(a).toHaveLength(4)
        expect(b).toHaveLength(6)
        expect([...a, ...b].map((d) => d.id)).toEqual(ids)
      }))

    test("two groups each get every entry", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const stream = yield* freshStream
        yield* queue.ensureGroup(stream, "g1")
        yield* queue.ensureGroup(stream, "g2")
        yield* queue.publish(stream, payloads("p", 4))
        const one = yield* queue.read(stream, "g1", "c", { count: 10, blockMs: 0 })
        yield* queue.ack(stream, "g1", one.map((d) => d.id))
        const two = yield* queue.read(stream, "g2", "c", { count: 10, blockMs: 0 })
        expect(one.map((d) => d.payload)).toEqual(payloads("p", 4))
        expect(two.map((d) => d.payload)).toEqual(payloads("p", 4))
        expect(two.every((d) => d.deliveries === 1)).toBe(true)
      }))

    test("concurrent publishes keep each batch contiguous and ids increasing", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const stream = yield* freshStream
        const batches = Arr.makeBy(20, (b) => payloads(`b${b}`, 25))
        const published = yield* Effect.forEach(batches, (batch) => queue.publish(stream, batch), {
          concurrency: "unbounded"
        })
        const all = yield* queue.readAfter(stream, "0", { count: 1000, blockMs: 0 })
        expect(all).toHaveLength(500)
        for (let i = 0; i < all.length; i += 25) {
          const chunk = all.slice(i, i + 25)
          const batch = published.findIndex((ids) => ids[0] === chunk[0]?.id)
          expect(batch).toBeGreaterThanOrEqual(0)
          expect(chunk.map((e) => e.id)).toEqual(published[batch])
          expect(chunk.map((e) => e.payload)).toEqual(batches[batch])
        }
      }))

    test("a blocking read returns as soon as an entry is published", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const stream = yield* freshStream
        yield* queue.ensureGroup(stream, "g")
        const reader = yield* Effect.forkChild(elapsed(queue.read(stream, "g", "c1", { count: 10, blockMs: 10_000 })))
        yield* Effect.sleep("200 millis")
        yield* queue.publish(stream, ["late"])
        const [read, ms] = yield* Fiber.join(reader)
        expect(read.map((d) => d.payload)).toEqual(["late"])
        expect(ms).toBeLessThan(5_000)
      }))

    test("a blocking read returns [] once blockMs has passed without entries", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const stream = yield* freshStream
        yield* queue.ensureGroup(stream, "g")
        const [read, ms] = yield* elapsed(queue.read(stream, "g", "c1", { count: 10, blockMs: 300 }))
        expect(read).toEqual([])
        expect(ms).toBeGreaterThanOrEqual(250)
        const [after, afterMs] = yield* elapsed(queue.readAfter(stream, "0", { count: 10, blockMs: 300 }))
        expect(after).toEqual([])
        expect(afterMs).toBeGreaterThanOrEqual(250)
      }))

    test("blocked readers do not hold up other commands", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const stream = yield* freshStream
        yield* queue.ensureGroup(stream, "g")
        const readers = yield* Effect.forEach(
          ["c1", "c2", "c3"],
          // In the test's scope: a child of forEach's concurrent worker fiber would end with it.
          (consumer) => Effect.forkScoped(queue.read(stream, "g", consumer, { count: 1, blockMs: 3_000 })),
          { concurrency: "unbounded" }
        )
        // After "0", not "$": on a loaded machine the follower may only issue its read after the publish,
        // and "$" would then wait for entries that never come. The stream is fresh, so "0" means the same.
        const follower = yield* Effect.forkChild(queue.readAfter(stream, "0", { count: 10, blockMs: 3_000 }))
        yield* Effect.sleep("100 millis")
        const [, pingMs] = yield* elapsed(queue.ping)
        const [ids, publishMs] = yield* elapsed(queue.publish(stream, ["one", "two", "three"]))
        expect(pingMs).toBeLessThan(1_500)
        expect(publishMs).toBeLessThan(1_500)
        const delivered = (yield* Effect.forEach(readers, Fiber.join)).flat()
        expect(delivered.map((d) => d.id).sort()).toEqual([...ids].sort())
        expect((yield* Fiber.join(follower)).map((e) => e.id)).toEqual(ids)
      }))

    test("deadLetter moves the entry to the dead stream with reason and count, and acks it", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const stream = yield* freshStream
        yield* queue.ensureGroup(stream, "g")
        const [id] = yield* queue.publish(stream, ["poison", "fine"])
        yield* queue.read(stream, "g", "c1", { count: 1, blockMs: 0 })
        const [claimed] = yield* queue.claimStale(stream, "g", "c2", { minIdleMs: 0, count: 10 })
        expect(claimed).toEqual({ id, payload: "poison", deliveries: 2 })
        if (claimed === undefined) return
        yield* queue.deadLetter(stream, "g", claimed, "upsert failed: boom", { deleteEntries: true })

        const dead = yield* queue.readDead(stream, { count: 10 })
        expect(dead).toHaveLength(1)
        expect(dead[0]).toMatchObject({ payload: "poison", reason: "upsert failed: boom", deliveries: 2, sourceId: id })
        expect(yield* queue.claimStale(stream, "g", "c3", { minIdleMs: 0, count: 10 })).toEqual([])
        expect((yield* queue.readAfter(stream, "0", { count: 10, blockMs: 0 })).map((e) => e.payload)).toEqual(["fine"])
        // The rest of the stream is untouched.
        const next = yield* queue.read(stream, "g", "c1", { count: 10, blockMs: 0 })
        expect(next.map((d) => d.payload)).toEqual(["fine"])
      }))

    test("deadLetter with keepDead keeps the newest dead letters only, in the same step, and refuses a negative bound", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const stream = yield* freshStream
        yield* queue.ensureGroup(stream, "g")
        yield* queue.publish(stream, payloads("p", 5))
        const delivered = yield* queue.read(stream, "g", "c1", { count: 5, blockMs: 0 })
        expect(delivered).toHaveLength(5)
        for (const [i, delivery] of delivered.entries()) {
          yield* queue.deadLetter(stream, "g", delivery, `reason ${i}`, { deleteEntries: true, keepDead: 3 })
          const kept = yield* queue.readDead(stream, { count: 10 })
          expect(kept.map((d) => d.sourceId)).toEqual(delivered.slice(Math.max(0, i - 2), i + 1).map((d) => d.id))
        }
        expect(yield* queue.readAfter(stream, "0", { count: 10, blockMs: 0 })).toEqual([])
        // keepDead 0 keeps none; without keepDead every dead letter stays.
        yield* queue.publish(stream, payloads("q", 2))
        const [first, second] = yield* queue.read(stream, "g", "c1", { count: 2, blockMs: 0 })
        if (first === undefined || second === undefined) return expect.fail("two entries delivered")
        yield* queue.deadLetter(stream, "g", first, "none kept", { keepDead: 0 })
        expect(yield* queue.readDead(stream, { count: 10 })).toEqual([])
        const error = yield* Effect.flip(queue.deadLetter(stream, "g", second, "bad bound", { keepDead: -1 }))
        expect(error).toBeInstanceOf(QueueError)
        // Refused before anything was written: the entry is still pending, no dead letter was added.
        expect(yield* queue.readDead(stream, { count: 10 })).toEqual([])
        yield* queue.deadLetter(stream, "g", second, "unbounded")
        expect((yield* queue.readDead(stream, { count: 10 })).map((d) => d.sourceId)).toEqual([second.id])
      }))

    test("lastId is 0-0 for a missing stream, then the newest entry's id: reading after it gives only later entries", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const stream = yield* freshStream
        expect(yield* queue.lastId(stream)).toBe("0-0")
        const ids = yield* queue.publish(stream, payloads("p", 3))
        const position = yield* queue.lastId(stream)
        expect(position).toBe(ids[2])
        const [later] = yield* queue.publish(stream, ["later"])
        expect(yield* queue.readAfter(stream, position, { count: 10, blockMs: 0 })).toEqual([{ id: later, payload: "later" }])
      }))

    test("readAfter pages through a stream from an id", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const stream = yield* freshStream
        const ids = yield* queue.publish(stream, payloads("e", 5))
        const pages: Array<ReadonlyArray<string>> = []
        let after = "0"
        while (true) {
          const page = yield* queue.readAfter(stream, after, { count: 2, blockMs: 0 })
          const last = page[page.length - 1]
          if (last === undefined) break
          pages.push(page.map((e) => e.payload))
          after = last.id
        }
        expect(pages).toEqual([["e-0", "e-1"], ["e-2", "e-3"], ["e-4"]])
        expect(yield* queue.readAfter(stream, ids[2] ?? "", { count: 10, blockMs: 0 })).toEqual([
          { id: ids[3], payload: "e-3" },
          { id: ids[4], payload: "e-4" }
        ])
      }))

    test("a follower blocked on readAfter wakes up on publish", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const stream = yield* freshStream
        const [first] = yield* queue.publish(stream, ["seen"])
        const follower = yield* Effect.forkChild(elapsed(queue.readAfter(stream, first ?? "0", { count: 10, blockMs: 10_000 })))
        yield* Effect.sleep("200 millis")
        const ids = yield* queue.publish(stream, ["new"])
        const [entries, ms] = yield* Fiber.join(follower)
        expect(entries).toEqual([{ id: ids[0], payload: "new" }])
        expect(ms).toBeLessThan(5_000)
      }))

    test("maxLen trims the oldest entries", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const stream = yield* freshStream
        yield* queue.publish(stream, payloads("m", 4))
        yield* queue.publish(stream, payloads("n", 3), { maxLen: 5 })
        const all = yield* queue.readAfter(stream, "0", { count: 100, blockMs: 0 })
        expect(all.map((e) => e.payload)).toEqual(["m-2", "m-3", "n-0", "n-1", "n-2"])
        const [last] = yield* queue.publish(stream, ["o"], { maxLen: 2 })
        const trimmed = yield* queue.readAfter(stream, "0", { count: 100, blockMs: 0 })
        expect(trimmed).toEqual([{ id: expect.any(String), payload: "n-2" }, { id: last, payload: "o" }])
      }))

    test("invalid arguments fail with QueueError", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const stream = yield* freshStream
        yield* queue.ensureGroup(stream, "g")
        const errors = yield* Effect.all([
          Effect.flip(queue.read(stream, "g", "c", { count: 0, blockMs: 0 })),
          Effect.flip(queue.readAfter(stream, "not-an-id", { count: 1, blockMs: 0 })),
          Effect.flip(queue.publish(stream, ["a"], { maxLen: -1 })),
          Effect.flip(queue.ack(stream, "g", ["nope"])),
          Effect.flip(queue.deadLetter(stream, "g", { id: "nope", payload: "p", deliveries: 1 }, "r"))
        ])
        for (const error of errors) expect(error).toBeInstanceOf(QueueError)
        expect(yield* queue.readAfter(stream, "0", { count: 10, blockMs: 0 })).toEqual([])
        expect(yield* queue.readDead(stream, { count: 10 })).toEqual([])
      }))

    test("many consumer fibers deliver every entry exactly once", () =>
      Effect.gen(function*() {
        const queue = yield* StreamQueue
        const stream = yield* freshStream
        yield* queue.ensureGroup(stream, "g")
        const seen = yield* Ref.make(Chunk.empty<string>())
        const total = 300
        const worker = (consumer: string) =>
          Effect.gen(function*() {
            while (Chunk.size(yield* Ref.get(seen)) < total) {
              const batch = yield* queue.read(stream, "g", consumer, { count: 7, blockMs: 200 })
              yield* Ref.update(seen, Chunk.appendAll(Chunk.fromIterable(batch.map((d) => d.id))))
              yield* queue.ack(stream, "g", batch.map((d) => d.id))
            }
          })
        const workers = yield* Effect.forEach(Arr.makeBy(6, (i) => `w${i}`), (c) => Effect.forkChild(worker(c)))
        const published = yield* Effect.forEach(Arr.makeBy(30, (b) => payloads(`b${b}`, total / 30)), (batch) =>
          queue.publish(stream, batch), { concurrency: 5 })
        yield* Effect.forEach(workers, Fiber.join).pipe(Effect.timeout("20 seconds"))
        const ids = Chunk.toReadonlyArray(yield* Ref.get(seen))
        expect(new Set(ids).size).toBe(ids.length)
        expect([...ids].sort()).toEqual(published.flat().sort())
        expect(yield* queue.claimStale(stream, "g", "x", { minIdleMs: 0, count: 10 })).toEqual([])
      }))
  })
}
