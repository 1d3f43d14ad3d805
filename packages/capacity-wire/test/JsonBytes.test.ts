import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { JsonBytes } from "../src/JsonBytes.ts"

describe("JsonBytes", () => {
  it("writes any text as its UTF-8 bytes, short or long, ASCII or not, across growth", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: "grapheme", maxLength: 300 }), fc.constant("x".repeat(20_000)))), (parts) => {
        expect(JsonBytes.written((out) => parts.forEach((part) => out.text(part)))).toEqual(Buffer.from(parts.join("")))
      })
    )
  })

  it("json writes JSON.stringify's text of any value, byte for byte: plain data here, a value holding anything else through JSON.stringify", () => {
    class Point {
      constructor(readonly x: number) {}
    }
    const odd = fc.oneof(
      fc.constant(undefined),
      fc.constant(-0),
      fc.constant(Number.NaN),
      fc.constant(Number.NEGATIVE_INFINITY),
      fc.date({ noInvalidDate: true }),
      fc.integer().map((x) => new Point(x)),
      fc.constant(() => 1),
      fc.constant({ toJSON: () => "custom" }),
      // toJSON is called with the member's key, and an array may carry one too.
      fc.constant({ toJSON: (key: string) => `at ${key}` }),
      fc.constant(Object.assign([1, 2], { toJSON: () => "an array's own" })),
      // A hole, and a getter.
      fc.constant([1, , 3]),
      fc.constant(Object.defineProperty({ a: 1 }, "b", { get: () => 2, enumerable: true })),
      fc.constant(Symbol("s")),
      fc.constant(Object.assign(Object.create(null) as object, { a: 1 })),
      fc.string({ unit: "binary", maxLength: 20 }),
      fc.constantFrom("x\u0000\"\\\u007f\ud800", "\u001f", "\b\t\n\f\r", "\u0020~", "é", "\u2028"),
      fc.constant("y".repeat(300))
    )
    const member = fc.oneof(fc.jsonValue({ maxDepth: 3 }), odd)
    const value = fc.oneof(
      fc.jsonValue({ maxDepth: 4 }),
      fc.array(member, { maxLength: 6 }),
      fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), fc.string({ unit: "binary", maxLength: 4 }), fc.nat().map(String)), member, { maxKeys: 6, noNullPrototype: true }),
      fc.dictionary(fc.string({ maxLength: 8 }), member, { maxKeys: 6 }),
      fc.array(fc.dictionary(fc.string({ maxLength: 4 }), member, { maxKeys: 4, noNullPrototype: true }), { maxLength: 3 })
    )
    fc.assert(
      fc.property(value, (v) => {
        expect(JsonBytes.written((out) => out.json(v)).toString("utf8")).toBe(JSON.stringify(v))
      }),
      { numRuns: 2000 }
    )
  })

  it("repeats and keeps parts by their bytes, also once the buffer has grown past them", () => {
    const long = "é".repeat(200_000)
    const bytes = JsonBytes.written((out) => {
      out.text("[")
      const start = out.position
      out.text(`"Lurín"`)
      const end = out.position
      const kept = out.since(start)
      out.text(`,${JSON.stringify(long)},`)
      out.repeat(start, end)
      out.text(",")
      out.bytes(kept)
      out.text("]")
    })
    expect(JSON.parse(bytes.toString("utf8"))).toEqual(["Lurín", long, "Lurín", "Lurín"])
  })

  it("gives each answer bytes of its own: later answers do not change an earlier one's", () => {
    const first = JsonBytes.written((out) => out.text(`{"a":1}`))
    const later = Array.from({ length: 100 }, (_, i) => JsonBytes.written((out) => out.text(JSON.stringify({ i, pad: "x".repeat(5000) }))))
    expect(first.toString("utf8")).toBe(`{"a":1}`)
    expect(later.map((bytes) => (JSON.parse(bytes.toString("utf8")) as { i: number }).i)).toEqual(Array.from({ length: 100 }, (_, i) => i))
  })

  it("lets a second writer work while the first is open", () => {
    let inner: Buffer | undefined
    const outer = JsonBytes.written((out) => {
      out.text("[1,")
      inner = JsonBytes.written((nested) => nested.text("[2]"))
      out.text("3]")
    })
    expect([outer.toString("utf8"), inner?.toString("utf8")]).toEqual(["[1,3]", "[2]"])
  })

  it("after a write that throws, the next answer is whole, in the slab again, and nothing before it changed", () => {
    const before = JsonBytes.written((out) => out.text(`"before"`))
    expect(() =>
      JsonBytes.written((out) => {
        out.text(`"half`)
        throw new Error("the encoder failed")
      })
    ).toThrow("the encoder failed")
    const after = JsonBytes.written((out) => out.text(`"after"`))
    expect([before.toString("utf8"), after.toString("utf8")]).toEqual([`"before"`, `"after"`])
    expect(after.buffer).toBe(before.buffer)
  })

  it("writes every number as JSON.stringify does, the same number again and again, and past the numbers it keeps", () => {
    const numbers = [0, -0, 1, 1023, 1024, -1, 2.5, 25.1, -12.0667, 1e21, 1e-7, 0.1 + 0.2, Number.MAX_SAFE_INTEGER, 5e-324, -1023.5]
    for (let round = 0; round < 3; round++) {
      expect(JsonBytes.written((out) => out.json(numbers)).toString("utf8")).toBe(JSON.stringify(numbers))
    }
    // More distinct fractions than are kept: each still its own text.
    const many = Array.from({ length: 10_000 }, (_, i) => i / 7 - 500)
    expect(JsonBytes.written((out) => out.json(many)).toString("utf8")).toBe(JSON.stringify(many))
    expect(JsonBytes.written((out) => out.json(numbers)).toString("utf8")).toBe(JSON.stringify(numbers))
    fc.assert(fc.property(fc.array(fc.double({ noNaN: true, noDefaultInfinity: true })), (values) => {
      expect(JsonBytes.written((out) => out.json(values)).toString("utf8")).toBe(JSON.stringify(values))
    }))
  })
})
