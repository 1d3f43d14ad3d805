import { describe, expect, it } from "vitest"
import * as fc from "fast-check"
import { DEFAULT_MAX_ELEMENT_VALUES, MAX_JSON_DEPTH, measureJson } from "../../src/index.ts"
import { bytes, scan, scanCut, values } from "./jsonHelpers.ts"

const products = [
  { productCode: "P1", description: "Sartén 28cm \"pro\", acero } ] {", tags: ["a", "b"], price: 1.5e3 },
  { productCode: "P2", nested: { deep: [[{ x: null }], true, false, -0.25] }, emoji: "caf\u00e9 \ud83d\ude00", esc: "\\\"\n\t\u0001" }
]

describe("JsonProductScanner envelopes", () => {
  it("accepts {\"products\":[...]}", () => {
    const r = scan(JSON.stringify({ products }))
    expect(r.error).toBeUndefined()
    expect(values(r)).toEqual(products)
    expect(r.products.map((p) => p.index)).toEqual([0, 1])
    expect(r.products[0]?.offset).toBe('{"products":['.length)
  })

  it("accepts a top-level array", () => {
    const text = JSON.stringify(products)
    const r = scan(text)
    expect(r.error).toBeUndefined()
    expect(values(r)).toEqual(products)
    // Offsets count bytes: "Sartén" before it holds a 2-byte character.
    expect(r.products[1]?.offset).toBe(bytes(text.slice(0, text.indexOf('{"productCode":"P2"'))).length)
  })

  it("skips other top-level keys before and after products, whatever they hold", () => {
    const text = `{"meta":{"a":[1,{"b":"]}"}]},"n":-1.5e2,"s":"[\\"x","t":true,"z":null,"products":[1,"two",{"three":3}],"after":[[[]]],"e":{}}`
    const r = scan(text)
    expect(r.error).toBeUndefined()
    expect(values(r)).toEqual([1, "two", { three: 3 }])
  })

  it("accepts an empty products array and a UTF-8 byte order mark", () => {
    expect(scan('{"products":[]}').products).toEqual([])
    expect(scan('{"products":[]}').error).toBeUndefined()
    const r = scan("\ufeff[ {\"a\":1} ]")
    expect(r.error).toBeUndefined()
    expect(values(r)).toEqual([{ a: 1 }])
  })

  it("reports the line where each product starts in a pretty-printed file", () => {
    const r = scan(JSON.stringify({ products }, null, 2))
    expect(r.products.map((p) => p.line)).toEqual([3, 12])
  })
})

describe("JsonProductScanner element bytes", () => {
  it("hands out each product's bytes as the file holds them, whitespace and escapes included, however the file is cut", () => {
    const elements = [`{ "productCode" : "P1",\n  "d": "a\\u00e9 \\" ]}" }`, `[1, {"x": "é€𝄞"}]`, `-1.5e3`, `"s"`]
    const input = bytes(`{"products": [\n${elements.join(" ,\n")}\n]}`)
    const decoder = new TextDecoder()
    for (let size = 1; size <= input.length; size += size < 12 ? 1 : 7) {
      const r = scan(input, size)
      expect(r.error).toBeUndefined()
      expect(r.products.map((p) => decoder.decode(p.json))).toEqual(elements)
    }
  })
})

describe("JsonProductScanner chunking", () => {
  const text = `\ufeff{"x":{"k":"v\\\\"},"products":[${JSON.stringify(products)},{"a":"\\\\\\""},"\\u00e9\\"",42,null],"y":"é€𝄞"}`
  const input = bytes(text)
  const whole = scan(input)

  it("gives the same products for a cut at every byte and for tiny chunk sizes", () => {
    expect(whole.error).toBeUndefined()
    expect(whole.products).toHaveLength(5)
    for (let cut = 0; cut <= input.length; cut++) {
      expect(scanCut(input, [cut])).toEqual(whole)
    }
    for (let size = 1; size <= 9; size++) expect(scan(input, size)).toEqual(whole)
  })

  it("gives the same result for two cuts at every pair of offsets in a short file", () => {
    const short = bytes('{"a":"\\"é","products":[{"b":"\\\\"},1]}')
    const expected = scan(short)
    expect(expected.error).toBeUndefined()
    for (let a = 0; a <= short.length; a++) {
      for (let b = a; b <= short.length; b++) expect(scanCut(short, [a, b])).toEqual(expected)
    }
  })
})

describe("JsonProductScanner truncation", () => {
  it("fails at every truncation offset, claiming the products array is not closed", () => {
    const input = bytes(`{"meta":{"é":"\\u00e9"},"products":[{"a":"x\\"y","b":[1,2.5e-3,true]},{"c":"€"}],"tail":{}}`)
    expect(scan(input).error).toBeUndefined()
    for (let len = 0; len < input.length; len++) {
      for (const size of [len || 1, 1]) {
        const r = scan(input.subarray(0, len), size)
        expect(r.error, `prefix ${len}`).toBeDefined()
        expect(r.error?.kind, `prefix ${len}`).toBe(len === 0 ? "empty" : "truncated")
        expect(r.error?.offset).toBe(len)
      }
    }
  })

  it("names the unclosed products array and the product being read", () => {
    expect(scan('{"products":[{"a":1},').error?.reason).toBe("unexpected end of file: the products array is not closed")
    expect(scan('[{"a":1},{"b":').error?.reason).toMatch(/^unexpected end of file inside product 1 .*the products array is not closed$/)
    expect(scan('{"products":[]').error?.reason).toBe("unexpected end of file: the top-level object is not closed")
  })
})

describe("JsonProductScanner syntax errors", () => {
  const cases: ReadonlyArray<readonly [string, number, number, number, RegExp]> = [
    ['[{"a":1}}', 8, 1, 9, /unexpected '}': expected ',' or ']'/],
    ['{"products":[1,]}', 15, 1, 16, /unexpected ']': expected a product/],
    ['{"products":[1],}', 16, 1, 17, /expected a key string/],
    ['{"a" 1,"products":[]}', 5, 1, 6, /expected ':'/],
    ['{"products":[]} x', 16, 1, 17, /unexpected 'x' after the end of the document/],
    ['[1]]', 3, 1, 4, /after the end of the document/],
    ['[\n  {"a": 1},\n  {"b": [1, 2}\n]', 27, 3, 14, /unexpected character '}': expected ',' or ']' in product 1/],
    ['[{"a":01}]', 7, 1, 8, /expected ',' or '}'/],
    ['[{"a":"x\ty"}]', 8, 1, 9, /unescaped control character 0x09 inside a string/],
    ['[{"a":"\\x"}]', 7, 1, 8, /invalid escape \\x/],
    ['[{"a":tru}]', 9, 1, 10, /expected 'true'/],
    ['[nul]', 4, 1, 5, /expected 'null'/],
    ['[{\'a\':1}]', 2, 1, 3, /expected a key string or '}'/],
    ['{"meta":{"a":[}],"products":[]}', 14, 1, 15, /unexpected character '}': expected a value/],
    ['{"products":{"a":1}}', 12, 1, 13, /"products" value must be an array, found '\{'/],
    ['{"products":null}', 12, 1, 13, /"products" value must be an array, found 'n'/],
    ['{"products":"x"}', 12, 1, 13, /"products" value must be an array/],
    ['{"items":[]}', 11, 1, 12, /no "products" key/],
    ["{}", 1, 1, 2, /no "products" key/],
    ['"products"', 0, 1, 1, /must be an object with a "products" array, or an array of products/],
    ["42", 0, 1, 1, /must be an object/],
    ['{"products":[1],"products":[2]}', 16, 1, 17, /duplicate "products" key/],
    ['{"product\\u0073":[1],"products":[2]}', 21, 1, 22, /duplicate "products" key/]
  ]
  it.each(cases)("%j fails at byte %i (line %i, column %i)", (text, offset, line, column, reason) => {
    for (const size of [text.length, 1, 3]) {
      const r = scan(text, size)
      expect(r.error?._tag).toBe("JsonSyntaxError")
      expect(r.error?.reason).toMatch(reason)
      expect({ offset: r.error?.offset, line: r.error?.line, column: r.error?.column }).toEqual({ offset, line, column })
    }
  })

  it("keeps failing with the same error once failed", () => {
    const scanner = scan("[}").error
    expect(scanner?.message).toMatch(/at byte 1 \(line 1, column 2\)$/)
  })

  it("reports an empty file and a whitespace-only file", () => {
    expect(scan("").error).toMatchObject({ kind: "empty", reason: "empty file", offset: 0 })
    expect(scan(" \n\t ").error).toMatchObject({ kind: "empty", offset: 4, line: 2 })
  })
})

describe("JsonProductScanner encoding", () => {
  const withBytes = (prefix: string, bad: ReadonlyArray<number>, suffix: string): Uint8Array => {
    const p = bytes(prefix)
    const s = bytes(suffix)
    const out = new Uint8Array(p.length + bad.length + s.length)
    out.set(p, 0)
    out.set(bad, p.length)
    out.set(s, p.length + bad.length)
    return out
  }
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<number>]> = [
    ["lone continuation byte", [0x80]],
    ["overlong encoding", [0xc0, 0x80]],
    ["UTF-16 surrogate", [0xed, 0xa0, 0x80]],
    ["truncated sequence", [0xe2, 0x82]],
    ["byte 0xFF", [0xff]],
    ["code point above U+10FFFF", [0xf4, 0x90, 0x80, 0x80]]
  ]
  it.each(cases)("rejects %s inside a product string at its offset, whatever the chunking", (_, bad) => {
    const input = withBytes('{"products":[{"a":"é', bad, '"}]}')
    const at = bytes('{"products":[{"a":"é').length
    for (const size of [input.length, 1, 2, 5]) {
      const r = scan(input, size)
      expect(r.error).toMatchObject({ _tag: "JsonSyntaxError", kind: "encoding", offset: at })
      expect(r.products).toEqual([])
    }
  })

  it("rejects invalid UTF-8 in a skipped value", () => {
    const r = scan(withBytes('{"meta":"', [0xfe], '","products":[]}'))
    expect(r.error).toMatchObject({ kind: "encoding", offset: 9 })
  })
})

describe("JsonProductScanner deep nesting and size limit", () => {
  const depth = 100_000
  it("parses a product nested 100,000 deep without overflowing the stack", () => {
    const text = `{"products":[${"[".repeat(depth)}${"]".repeat(depth)},{"ok":1}]}`
    const r = scan(text, 4096, { maxDepth: Infinity, maxElementValues: Infinity })
    expect(r.error).toBeUndefined()
    expect(r.products).toHaveLength(2)
    expect(r.products[1]?.value).toEqual({ ok: 1 })
  })

  it("locates a fault at the bottom of 100,000 levels", () => {
    const text = `[${'{"a":'.repeat(depth)}]${"}".repeat(depth)}]`
    const r = scan(text, 65536, { maxDepth: Infinity, maxElementValues: Infinity })
    expect(r.error).toMatchObject({ kind: "syntax", offset: 1 + 5 * depth })
    expect(r.error?.reason).toMatch(/unexpected character '\]': expected a value/)
  })

  it("reports a 100,000-deep unclosed nesting as truncated", () => {
    const r = scan(`{"products":[${"[".repeat(depth)}`, 1000, { maxDepth: Infinity, maxElementValues: Infinity })
    expect(r.error).toMatchObject({ kind: "truncated" })
  })

  it("by default refuses an element nested deeper than MAX_JSON_DEPTH, in a product or a skipped value, at the offending bracket", () => {
    const fits = `{"products":[${"[".repeat(MAX_JSON_DEPTH)}${"]".repeat(MAX_JSON_DEPTH)}]}`
    expect(scan(fits, 7).error).toBeUndefined()
    const deep = `{"products":[${"[".repeat(depth)}${"]".repeat(depth)}]}`
    for (const size of [deep.length, 7]) {
      expect(scan(deep, size).error).toMatchObject({
        kind: "structure",
        offset: 13 + MAX_JSON_DEPTH,
        reason: `product 0 is nested deeper than ${MAX_JSON_DEPTH} levels`
      })
    }
    expect(scan(`{"meta":${"{\"a\":".repeat(100)}1${"}".repeat(100)},"products":[]}`).error).toMatchObject({
      kind: "structure",
      reason: `a value is nested deeper than ${MAX_JSON_DEPTH} levels`
    })
  })

  it("rejects an element larger than maxElementBytes, in one chunk or across chunks", () => {
    const big = `{"products":[{"a":"${"x".repeat(300)}"}]}`
    for (const size of [big.length, 64, 7]) {
      const r = scan(big, size, { maxElementBytes: 100 })
      expect(r.error).toMatchObject({ kind: "too-large", offset: 13 })
      expect(r.error?.reason).toBe("product 0 is larger than the limit of 100 bytes")
    }
    expect(scan(big, 7, { maxElementBytes: 400 }).error).toBeUndefined()
  })
})

describe("JsonProductScanner values per element", () => {
  /** A product holding `count` values in all: the object, a member name, the array, and count - 3 zeros. */
  const productOf = (count: number) => `{"a":[${Array.from({ length: count - 3 }, () => "0").join(",")}]}`

  it("refuses a product with more than maxElementValues values at its start, naming the limit, whatever the chunking and the mode", () => {
    const fits = `{"products":[${productOf(50)}]}`
    const over = `{"products":[{"ok":1},${productOf(51)}]}`
    for (const parseProducts of [true, false]) {
      for (const size of [over.length, 64, 7]) {
        const options = { maxElementValues: 50, maxElementValuesVariable: "PRODUCT_MAX_VALUES", parseProducts }
        expect(scan(fits, size, options).error).toBeUndefined()
        const r = scan(over, size, options)
        expect(r.products).toHaveLength(1)
        expect(r.error).toMatchObject({ kind: "too-large", offset: 22, line: 1, column: 23, reason: "product 1 has more than 50 JSON values (PRODUCT_MAX_VALUES)" })
      }
    }
  })

  it("refuses a value beside the products alike, and names no setting when none is given", () => {
    const r = scan(`{"meta":${productOf(11)},"products":[]}`, 5, { maxElementValues: 10 })
    expect(r.error).toMatchObject({ kind: "too-large", offset: 8, reason: "a value has more than 10 JSON values" })
  })

  it("counts only elements longer than twice the limit, which is exact: a shorter one cannot hold more values", () => {
    // Two bytes a value is the least JSON allows: `[0,0,...]` with its separators.
    const tight = `[${Array.from({ length: 40 }, () => "0").join(",")}]`
    expect(tight.length).toBe(2 * 41 - 1)
    expect(scan(`[${tight}]`, 9, { maxElementValues: 40 }).error).toMatchObject({ reason: "product 0 has more than 40 JSON values" })
    fc.assert(
      fc.property(fc.json({ maxDepth: 4 }), fc.integer({ min: 1, max: 40 }), (json, limit) => {
        const counted = measureJson(bytes(json), limit, Infinity)
        const r = scan(`[${json}]`, 13, { maxElementValues: limit })
        expect(r.error?.kind === "too-large").toBe(counted._tag === "TooManyValues")
      }),
      { numRuns: 500 }
    )
  })

  it("by default allows DEFAULT_MAX_ELEMENT_VALUES values, 150 times a sample product's", () => {
    expect(scan(`[${productOf(DEFAULT_MAX_ELEMENT_VALUES)}]`).error).toBeUndefined()
    expect(scan(`[${productOf(DEFAULT_MAX_ELEMENT_VALUES + 1)}]`).error?.reason).toBe(`product 0 has more than ${DEFAULT_MAX_ELEMENT_VALUES} JSON values`)
  })
})
