import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Exit, Fiber, Stream } from "effect"
import { makeLiveSpool } from "../src/files/LiveSpool.ts"
import type { SpoolRecord } from "../src/files/LoadSpool.ts"

const bytes = (text: string) => new TextEncoder().encode(text)
const text = (record: SpoolRecord) => record._tag === "Batch" ? `${record.count}:${new TextDecoder().decode(record.productsJson)}` : `E:${record.json}`

describe("LiveSpool", () => {
  it.effect("hands the reader every record in the order written, batches copied out of the writer's buffer", () =>
    Effect.gen(function*() {
      const spool = yield* makeLiveSpool("/unused")
      const allocated: Array<Uint8Array> = []
      const reading = yield* Stream.runCollect(spool.records((length) => {
        const buffer = new Uint8Array(length)
        allocated.push(buffer)
        return buffer
      })).pipe(Effect.fork)
      const reused = bytes("[1,2]")
      yield* spool.writeBatch(2, reused)
      reused.set(bytes("[9,9]"))
      yield* spool.writeErrors("[{\"sku\":\"A\",\"error\":\"bad\"}]")
      yield* spool.writeBatch(2, reused)
      yield* spool.end
      const records = Chunk.toReadonlyArray(yield* Fiber.join(reading))
      expect(records.map(text)).toEqual(["2:[1,2]", "E:[{\"sku\":\"A\",\"error\":\"bad\"}]", "2:[9,9]"])
      const batches = records.flatMap((record) => record._tag === "Batch" ? [record.productsJson] : [])
      expect(allocated).toHaveLength(2)
      expect(batches.every((batch, i) => batch === allocated[i])).toBe(true)
    }))

  it.effect("makes a writer that gets 8 records ahead of its reader wait for it", () =>
    Effect.gen(function*() {
      const spool = yield* makeLiveSpool("/unused")
      let written = 0
      const writing = yield* Effect.gen(function*() {
        for (let i = 0; i < 20; i++) {
          yield* spool.writeErrors(`[${i}]`)
          written++
        }
        yield* spool.end
      }).pipe(Effect.fork)
      yield* Effect.yieldNow({ priority: 1 })
      for (let i = 0; i < 10 && written < 20; i++) yield* Effect.yieldNow()
      expect(written).toBe(8)
      const records = yield* Stream.runCollect(spool.records())
      yield* Fiber.join(writing)
      expect(Chunk.toReadonlyArray(records).map(text)).toEqual(Array.from({ length: 20 }, (_, i) => `E:[${i}]`))
    }))

  it.effect("fails its reader with the writer's reason after the records written before", () =>
    Effect.gen(function*() {
      const spool = yield* makeLiveSpool("/unused")
      const read: Array<string> = []
      const reading = yield* Stream.runForEach(spool.records(), (record) => Effect.sync(() => read.push(text(record)))).pipe(Effect.fork)
      yield* spool.writeBatch(1, bytes("[1]"))
      yield* spool.fail("the CSV files could not be joined (worker exited)")
      const exit = yield* Fiber.await(reading)
      expect(read).toEqual(["1:[1]"])
      expect(exit).toEqual(Exit.fail(expect.objectContaining({ _tag: "SourceFailed", message: "the CSV files could not be joined (worker exited)" })))
    }))
})
