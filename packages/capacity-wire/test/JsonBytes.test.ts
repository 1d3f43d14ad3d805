import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { JsonBytes } from "../src/JsonBytes.ts"

describe("JsonBytes", () => {
  it("writes any text as its UTF-8 bytes, short or long, ASCII or not, across growth", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: "grapheme", maxLength: 300 }), fc.constant("x".repeat(20_000)))), (parts) => {
        const out = JsonBytes.begin()
        for (const part of parts) out.text(part)
        expect(out.done()).toEqual(Buffer.from(parts.join("")))
      })
    )
  })

  it("repeats and keeps parts by their bytes, also once the buffer has grown past them", () => {
    const out = JsonBytes.begin()
    out.text("[")
    const start = out.position
    out.text(`"Lurín"`)
    const end = out.position
    const kept = out.since(start)
    out.text(`,${JSON.stringify("é".repeat(40_000))},`)
    out.repeat(start, end)
    out.text(",")
    out.bytes(kept)
    out.text("]")
    expect(JSON.parse(out.done().toString("utf8"))).toEqual(["Lurín", "é".repeat(40_000), "Lurín", "Lurín"])
  })

  it("gives each answer bytes of its own: the next writer's bytes do not change the last answer's", () => {
    const first = JsonBytes.begin()
    first.text(`{"a":1}`)
    const answer = first.done()
    const second = JsonBytes.begin()
    second.text(`{"b":2}`)
    second.done()
    expect(answer.toString("utf8")).toBe(`{"a":1}`)
  })

  it("lets a second writer work while the first is open", () => {
    const outer = JsonBytes.begin()
    outer.text("[1,")
    const inner = JsonBytes.begin()
    inner.text("[2]")
    expect(inner.done().toString("utf8")).toBe("[2]")
    outer.text("3]")
    expect(outer.done().toString("utf8")).toBe("[1,3]")
  })
})
