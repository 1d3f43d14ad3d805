import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { isUtf8 } from "node:buffer"
import { LAYOUT_END, LAYOUT_FIELDS, LAYOUT_OFFSET, LAYOUT_START } from "../../src/json/JsonBlock.ts"
import { measureJson } from "../../src/json/JsonValueCount.ts"
import { productsBodyBlocks, splitProductsBody } from "../../src/json/ProductsBody.ts"
import { bytes } from "./jsonHelpers.ts"

const limits = { maxValues: 1_000_000, maxProducts: 3000 }
const decoder = new TextDecoder()

const elementsOf = (body: Uint8Array, layout: NonNullable<ReturnType<typeof splitProductsBody>>): Array<string> =>
  Array.from({ length: layout.count }, (_, i) => decoder.decode(body.subarray(layout.starts[i]!, layout.ends[i]!)))

/** JSON.parse of every element, or undefined when one is not JSON (the caller's path then reads the body whole). */
const parseElements = (elements: ReadonlyArray<string>): Array<unknown> | undefined => {
  try {
    return elements.map((element): unknown => JSON.parse(element))
  } catch {
    return undefined
  }
}

const parseWhole = (body: Uint8Array): { readonly ok: true; readonly value: unknown } | { readonly ok: false } => {
  try {
    return { ok: true, value: JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body)) }
  } catch {
    return { ok: false }
  }
}

describe("splitProductsBody", () => {
  it("delimits each product of a {\"products\":[...]} body, and counts its values as measureJson does", () => {
    const texts = [
      "{\"products\":[]}",
      " \n{ \"products\" :\t[ ] }\r\n",
      "{\"products\":[{\"a\":1},{\"b\":[true,false,null]}]}",
      "{\"products\":[ 1 , \"x\" , null, -1.5e+3, [ ], { } ]}",
      "{\"products\":[{\"t\":\"a,b:c[{\\\"}]\",\"u\":\"\\\\\"},{\"v\":\"ü{€\"}]}",
      `{"products":[${"[".repeat(62)}${"]".repeat(62)}]}`
    ]
    for (const text of texts) {
      const body = bytes(text)
      const layout = splitProductsBody(body, limits)
      expect(layout, text).toBeDefined()
      expect(parseElements(elementsOf(body, layout!)), text).toEqual(JSON.parse(text).products)
      expect(layout!.values, text).toBe((measureJson(body, Infinity) as { values: number }).values)
    }
  })

  it("leaves every other shape to the general path", () => {
    const texts = [
      "[{\"a\":1}]",
      "{\"products\":[],\"x\":1}",
      "{\"x\":1,\"products\":[]}",
      "{\"products\":[]}x",
      "{\"products\":[]}{}",
      "\ufeff{\"products\":[]}",
      "{\"pro\\u0064ucts\":[]}",
      "{\"products\":{}}",
      "{\"products\":null}",
      "{\"products\":[1,]}",
      "{\"products\":[,1]}",
      "{\"products\":[1 2]}",
      "{\"products\":[{\"a\":\"unterminated}]}",
      "{\"products\":[{\"a\":1}",
      "{\"products\":[}",
      "",
      "{}"
    ]
    for (const text of texts) expect(splitProductsBody(bytes(text), limits), text).toBeUndefined()
  })

  it("refuses more products, values or nesting than its limits, counted as measureJson counts them", () => {
    const three = bytes("{\"products\":[{},{},{}]}")
    expect(splitProductsBody(three, { maxValues: 100, maxProducts: 2 })).toBeUndefined()
    expect(splitProductsBody(three, { maxValues: 100, maxProducts: 3 })?.count).toBe(3)
    expect(splitProductsBody(three, { maxValues: 5, maxProducts: 3 })).toBeUndefined()
    expect(splitProductsBody(three, { maxValues: 6, maxProducts: 3 })?.values).toBe(6)
    const deep = (levels: number) => bytes(`{"products":[${"[".repeat(levels)}${"]".repeat(levels)}]}`)
    expect(splitProductsBody(deep(62), limits)).toBeDefined()
    expect(measureJson(deep(62), Infinity)._tag).toBe("Within")
    expect(splitProductsBody(deep(63), limits)).toBeUndefined()
    expect(measureJson(deep(63), Infinity)._tag).toBe("TooDeep")
  })

  it("accepts a body only when, its elements parsed, it is that JSON: the products are the elements (property)", () => {
    const bodies = fc.oneof(
      fc.array(fc.json({ maxDepth: 3 }), { maxLength: 6 }).map((elements) => `{"products":[${elements.join(",")}]}`),
      fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 6 }).map((elements) => JSON.stringify({ products: elements }, null, 1))
    )
    // Cut, doubled or replaced bytes: what a broken client or a hostile one sends.
    const mutated = fc.tuple(bodies, fc.nat(), fc.nat({ max: 3 }), fc.constantFrom("", ",", "\"", "\\", "]", "}", "[", "{", " ", "1", ":")).map(
      ([body, at, kind, piece]) => {
        const i = at % (body.length + 1)
        return kind === 0 ? body : kind === 1 ? body.slice(0, i) + piece + body.slice(i) : kind === 2 ? body.slice(0, i) + body.slice(i + 1) : body.slice(0, i)
      }
    )
    let compared = 0
    fc.assert(
      fc.property(mutated, (text) => {
        const body = bytes(text)
        const layout = splitProductsBody(body, { maxValues: 1_000_000, maxProducts: 100 })
        const whole = parseWhole(body)
        if (layout === undefined) return
        const elements = parseElements(elementsOf(body, layout))
        if (elements === undefined || !isUtf8(body)) return
        compared++
        expect(whole.ok, text).toBe(true)
        expect(whole.ok && whole.value, text).toEqual({ products: elements })
        expect(layout.values, text).toBe((measureJson(body, Infinity) as { values: number }).values)
      }),
      { numRuns: 3000 }
    )
    // Most mutations break the body; enough of them still pass for the property to say something.
    expect(compared).toBeGreaterThan(500)
  })
})

describe("productsBodyBlocks", () => {
  it("cuts the products into blocks of about the size asked, in order, each a region of the body read in place", () => {
    const products = Array.from({ length: 50 }, (_, i) => ({ productCode: `P${i}`, text: "x".repeat(i * 7) }))
    const text = bytes(JSON.stringify({ products }, null, 2))
    const body = new Uint8Array(new SharedArrayBuffer(text.length + 10), 10, text.length)
    body.set(text)
    const layout = splitProductsBody(body, limits)!
    const blocks = productsBodyBlocks(body, layout, "ACME", 600)
    expect(blocks.length).toBeGreaterThan(2)
    const seen: Array<unknown> = []
    for (const block of blocks) {
      expect(block.firstIndex).toBe(seen.length)
      expect(block.company).toBe("ACME")
      expect(block.bytes).toBe(body.buffer)
      const places = new Float64Array(block.layout)
      for (let i = 0; i < block.count; i++) {
        const start = places[i * LAYOUT_FIELDS + LAYOUT_START]!
        const end = places[i * LAYOUT_FIELDS + LAYOUT_END]!
        expect((block.bytesOffset ?? 0) + start).toBe(10 + layout.starts[seen.length]!)
        expect(places[i * LAYOUT_FIELDS + LAYOUT_OFFSET]).toBe(layout.starts[seen.length])
        if (i === block.count - 1 && block.count > 1) expect(end).toBeLessThanOrEqual(600)
        seen.push(JSON.parse(decoder.decode(new Uint8Array(block.bytes, (block.bytesOffset ?? 0) + start, end - start))))
      }
    }
    expect(seen).toEqual(products)
  })

  it("refuses a body that is not a SharedArrayBuffer's view, which threads could not read in place", () => {
    const body = bytes("{\"products\":[{}]}")
    expect(() => productsBodyBlocks(body, splitProductsBody(body, limits)!, "ACME", 600)).toThrow(TypeError)
  })
})
