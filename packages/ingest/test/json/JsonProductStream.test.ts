import { describe, expect, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { scanJsonProducts } from "../../src/json/JsonProductStream.ts"
import { bytes } from "./jsonHelpers.ts"

const chunked = (text: string, size: number): Stream.Stream<Uint8Array> => {
  const b = bytes(text)
  const parts: Array<Uint8Array> = []
  for (let i = 0; i < b.length; i += size) parts.push(b.subarray(i, i + size))
  return Stream.fromIterable(parts)
}

describe("scanJsonProducts", () => {
  it.effect("streams the products of a file fed in chunks", () =>
    Effect.gen(function* () {
      const out = yield* chunked('{"products":[{"a":1},{"b":[2]},{"c":"}"}]}', 3).pipe(scanJsonProducts(), Stream.runCollect)
      expect(out.map((p) => p.value)).toEqual([{ a: 1 }, { b: [2] }, { c: "}" }])
    }))

  it.effect("fails with JsonSyntaxError when the file is truncated", () =>
    Effect.gen(function* () {
      const error = yield* chunked('{"products":[{"a":1},{"b"', 4).pipe(scanJsonProducts(), Stream.runDrain, Effect.flip)
      expect(error._tag).toBe("JsonSyntaxError")
      if (error._tag === "JsonSyntaxError") expect(error.kind).toBe("truncated")
    }))

  it.effect("keeps the upstream error type", () =>
    Effect.gen(function* () {
      const upstream = Stream.concat(chunked("[1,", 2), Stream.fail("disk gone" as const))
      const error = yield* upstream.pipe(scanJsonProducts(), Stream.runDrain, Effect.flip)
      expect(error).toBe("disk gone")
    }))

  it.effect("can be run twice: each run gets a fresh scanner", () =>
    Effect.gen(function* () {
      const stream = chunked("[1,2,3]", 2).pipe(scanJsonProducts())
      const a = yield* Stream.runCollect(stream)
      const b = yield* Stream.runCollect(stream)
      expect(a.length).toBe(3)
      expect(b.length).toBe(3)
    }))
})
