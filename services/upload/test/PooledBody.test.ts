import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { PassThrough } from "node:stream"
import { setTimeout as sleep } from "node:timers/promises"
import { readBodyInto } from "../src/products/PooledBody.ts"
import { BufferPool } from "../src/publish/BufferPool.ts"

/** A body arriving in `chunks`, then ended (or failed with `error`). */
const bodyOf = (chunks: ReadonlyArray<Uint8Array>, error?: Error) => {
  const source = new PassThrough()
  setImmediate(() => {
    for (const chunk of chunks) source.write(chunk)
    if (error === undefined) source.end()
    else source.destroy(error)
  })
  return source
}

const chunksOf = (total: number, size: number) =>
  Array.from({ length: Math.ceil(total / size) }, (_, i) => Buffer.alloc(Math.min(size, total - i * size), i % 251))

describe("readBodyInto", () => {
  it.effect("reads the whole body into one pooled buffer, growing it past the declared size, and gives it back when the scope closes", () =>
    Effect.gen(function*() {
      const taken: Array<number> = []
      const given: Array<number> = []
      const pool = new BufferPool(4)
      const counting = {
        take: (length: number) => {
          taken.push(length)
          return pool.take(length)
        },
        give: (view: Uint8Array) => {
          given.push(view.length)
          pool.give(view)
        }
      }
      const chunks = chunksOf(300_000, 7_000)
      const body = yield* Effect.scoped(Effect.map(readBodyInto(bodyOf(chunks), 1_000_000, 0, counting), (bytes) => Buffer.from(bytes)))
      expect(body.equals(Buffer.concat(chunks))).toBe(true)
      expect(taken.length).toBeGreaterThan(1)
      expect(given).toHaveLength(taken.length)
      // A second body of the same size reuses what the first gave back.
      const again = yield* Effect.scoped(Effect.map(readBodyInto(bodyOf(chunks), 1_000_000, 300_000, pool), (bytes) => bytes.length))
      expect(again).toBe(300_000)
    }))

  it.effect("refuses a body over the limit and drains the rest of it, so that an answer can still be sent", () =>
    Effect.gen(function*() {
      const source = bodyOf(chunksOf(100_000, 10_000))
      const exit = yield* Effect.exit(Effect.scoped(readBodyInto(source, 50_000, 0, new BufferPool(1))))
      expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("TooLarge")
      yield* Effect.promise(() => sleep(50))
      // Read to its end (discarded), not cut off.
      expect(source.readableEnded).toBe(true)
      expect(source.errored).toBeNull()
    }))

  it.effect("fails when the body breaks off", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Effect.scoped(readBodyInto(bodyOf(chunksOf(20_000, 5_000), new Error("aborted")), 50_000, 0, new BufferPool(1))))
      expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("Failed")
    }))
})

describe("BufferPool", () => {
  it.effect("hands a given-back buffer out again, and with idleMs lets its buffers go once none came back for that long", () =>
    Effect.gen(function*() {
      const pool = new BufferPool(2, { idleMs: 30 })
      const first = pool.take(100_000)
      pool.give(first)
      const second = pool.take(90_000)
      expect(second.buffer).toBe(first.buffer)
      pool.give(second)
      yield* Effect.promise(() => sleep(80))
      expect(pool.take(90_000).buffer).not.toBe(first.buffer)
    }))

  it("makes its buffers with the allocator given (SharedArrayBuffers' views, say)", () => {
    const pool = new BufferPool(1, { allocate: (length) => new Uint8Array(new SharedArrayBuffer(length)) })
    expect(pool.take(10).buffer).toBeInstanceOf(SharedArrayBuffer)
  })
})
