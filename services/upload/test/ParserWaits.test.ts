import { describe, expect, it } from "@effect/vitest"
import { type Cause, Duration, Effect, Fiber, Queue, Stream } from "effect"
import { TestClock } from "effect/testing"
import { ParserWaits } from "../src/multipart/ParserWaits.ts"

const LIMIT = Duration.seconds(5)

/** A stream fed by the test, read one chunk at a time by a reader that the test can hold up. */
const fedStream = Effect.map(Queue.make<number, Cause.Done>(), (queue) => ({ queue, stream: Stream.fromQueue(queue) }))

describe("ParserWaits", () => {
  it.effect("is stuck once a pull has waited the limit after the body ended", () =>
    Effect.gen(function*() {
      const waits = new ParserWaits()
      const { stream } = yield* fedStream
      yield* Stream.runDrain(waits.track(stream)).pipe(Effect.forkChild)
      yield* TestClock.adjust(Duration.seconds(60)) // waiting before the end does not count
      const stuck = yield* waits.stuckFor(LIMIT, 60_000).pipe(Effect.forkChild)
      yield* TestClock.adjust(Duration.seconds(4))
      expect(stuck.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust(Duration.seconds(1))
      expect(yield* Fiber.join(stuck)).toBeUndefined()
    }))

  it.effect("is never stuck while the reader is busy and not waiting on the parser", () =>
    Effect.gen(function*() {
      const waits = new ParserWaits()
      const { queue, stream } = yield* fedStream
      yield* Queue.offerAll(queue, [1, 2])
      // The reader takes the first chunk, then works on it for a minute before it pulls again.
      const reading = yield* waits.track(stream).pipe(
        Stream.rechunk(1),
        Stream.runForEach(() => Effect.sleep(Duration.minutes(1))),
        Effect.forkChild
      )
      const stuck = yield* waits.stuckFor(LIMIT, 0).pipe(Effect.forkChild)
      yield* TestClock.adjust(Duration.seconds(50))
      expect(stuck.pollUnsafe()).toBeUndefined()
      yield* Queue.end(queue)
      yield* TestClock.adjust(Duration.minutes(3))
      yield* Fiber.join(reading)
      expect(stuck.pollUnsafe()).toBeUndefined()
    }))
})
