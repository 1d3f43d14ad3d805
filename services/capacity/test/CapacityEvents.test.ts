import { describe, expect, it } from "@effect/vitest"
import { MemoryStreamQueue, StreamQueue } from "@retail/queue"
import { CapacityConfig, CapacityEvent, CapacityEvents, encodeEvent } from "@retail/service-capacity"
import { Context, Effect, Layer, Option, Schema } from "effect"

/** The in-memory queue, remembering the position of every read. */
const readPositions: Array<string> = []
const RecordingQueue = Layer.effect(
  StreamQueue,
  Effect.map(MemoryStreamQueue.make, (queue) => ({
    ...queue,
    readAfter: (stream: string, afterId: string, options: { readonly count: number; readonly blockMs: number }) =>
      Effect.andThen(Effect.sync(() => readPositions.push(afterId)), queue.readAfter(stream, afterId, options))
  }))
)

const Config = CapacityConfig.test({ apiKeys: new Set(["key"]), eventsStream: Option.some("test:capacity-events"), maxBodyBytes: 1024 })

const Events = CapacityEvents.layer.pipe(Layer.provide(Config), Layer.provideMerge(RecordingQueue))

/** The events of another process on the same stream (fresh: layers are memoized across builds in Effect 4). */
const otherProcess = Effect.flatMap(StreamQueue, (queue) =>
  Effect.map(
    Layer.build(Layer.fresh(CapacityEvents.layer.pipe(Layer.provide(Config), Layer.provide(Layer.succeed(StreamQueue, queue))))),
    (context) => Context.get(context, CapacityEvents)
  ))

const consumed = (orderId: string): CapacityEvent => ({ _tag: "UsageChanged", reason: "CONSUMED", orderId, usage: [] })

const waitUntil = (done: () => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 500 && !done(); i++) yield* Effect.sleep("10 millis")
  })

/** This process following the stream from now on (what it applied, by order id), and another process. */
const following = Effect.gen(function*() {
  const events = yield* CapacityEvents
  const other = yield* otherProcess
  const applied: Array<string> = []
  yield* events.follow(yield* events.position, {
    apply: (event) =>
      Effect.sync(() =>
        applied.push(
          event._tag === "UsageChanged" ? event.orderId : event._tag === "NetworkReplaced" ? `network ${event.version}` : `${event.rows.length} changes`
        )
      ),
    resync: Effect.void
  })
  return { applied, events, other }
})

describe("capacity events", () => {
  it("an event's text (JSON.stringify, not the schema's encoder) decodes with the schema to the same event", () => {
    const events: ReadonlyArray<CapacityEvent> = [
      { _tag: "UsageChanged", origin: "p-1", reason: "RELEASED", orderId: "O-1", usage: [
        { kind: "PICKING", code: "CD-LURIN", slot: "NORMAL", day: "2028-01-03", used: 7, revision: 12 },
        { kind: "ZONE_WINDOW", code: "LIMA-MODERNA", slot: "09:00-13:00", day: "2028-01-04", used: 0, revision: 3 }
      ] },
      { _tag: "NetworkReplaced", version: 4 }
    ]
    for (const event of events) expect(Schema.decodeUnknownSync(Schema.fromJsonString(CapacityEvent))(encodeEvent(event))).toEqual(event)
  })

  it.live("each event is applied once, in order, every read starting after the last event applied", () =>
    Effect.gen(function*() {
      const { applied, other } = yield* following

      for (const order of ["a", "b", "c"]) yield* other.publish(consumed(order))
      yield* waitUntil(() => applied.length >= 3)
      yield* other.publish(consumed("d"))
      yield* waitUntil(() => applied.includes("d"))
      // Time for a follower that went back to an old position to apply something twice.
      yield* Effect.sleep("100 millis")

      expect(applied).toEqual(["a", "b", "c", "d"])
      const queue = yield* StreamQueue
      const lastId = yield* queue.lastId("test:capacity-events")
      expect(readPositions.at(-1)).toBe(lastId)
    }).pipe(Effect.provide(Events)))

  it.live("a process passes over its own events, which it applied before publishing them", () =>
    Effect.gen(function*() {
      const { applied, events, other } = yield* following

      yield* events.publish(consumed("own"))
      yield* events.publish({ _tag: "NetworkReplaced", version: 7 })
      yield* other.publish(consumed("theirs"))
      yield* waitUntil(() => applied.includes("theirs"))
      yield* Effect.sleep("100 millis")

      expect(applied).toEqual(["theirs"])
      const queue = yield* StreamQueue
      expect(readPositions.at(-1)).toBe(yield* queue.lastId("test:capacity-events"))
    }).pipe(Effect.provide(Events)))
})
