import { describe, expect, it } from "@effect/vitest"
import { measureJson } from "../../src/json/JsonValueCount.ts"

const bytes = (text: string) => new TextEncoder().encode(text)

/** What JSON.parse allocates: every value and every member name. */
const parsedValues = (text: string): number => {
  let count = 0
  JSON.parse(text, function(this: unknown, key: string, value: unknown) {
    count += key === "" || Array.isArray(this) ? 1 : 2
    return value
  })
  return count
}

describe("measureJson", () => {
  it("counts what JSON.parse allocates: values and member names", () => {
    const texts = [
      "1",
      "\"x\"",
      "[]",
      "{}",
      "[1,2,3]",
      "{\"a\":1,\"b\":[true,false,null],\"c\":{\"d\":\"e\"}}",
      " { \"a\" : -1.5e+3 , \"b\" : [ ] } ",
      "[\"a,b:c[{\",\"\\\"\",\"\\\\\",\"q\\\\\\\"}\",\"ü{€\"]",
      "{\"products\":[],\"x\":[{},{},{},[]]}"
    ]
    for (const text of texts) {
      expect(measureJson(bytes(text), 1000), text).toEqual({ _tag: "Within", values: parsedValues(text) })
    }
  })

  it("stops at the first value past the limit", () => {
    const bomb = bytes(`{"products":[],"x":[${"{},".repeat(100_000)}{}]}`)
    expect(measureJson(bomb, 1000)).toEqual({ _tag: "TooManyValues", offset: 20 + 3 * 995 })
    expect(measureJson(bytes("[1,2,3]"), 4)).toEqual({ _tag: "Within", values: 4 })
    expect(measureJson(bytes("[1,2,3]"), 3)).toEqual({ _tag: "TooManyValues", offset: 5 })
  })

  it("counts scalars and strings, not only containers", () => {
    expect(measureJson(bytes(`[${"1,".repeat(50)}"a","b"]`), 40)._tag).toBe("TooManyValues")
    expect(measureJson(bytes(`{${Array.from({ length: 30 }, (_, i) => `"k${i}":0`).join(",")}}`), 40)._tag).toBe("TooManyValues")
  })

  it("refuses nesting deeper than the limit where it starts", () => {
    expect(measureJson(bytes(`${"[".repeat(64)}${"]".repeat(64)}`), 1000)).toEqual({ _tag: "Within", values: 64 })
    expect(measureJson(bytes(`{"a":${"[".repeat(64)}${"]".repeat(64)}}`), 1000)).toEqual({ _tag: "TooDeep", offset: 68 })
    expect(measureJson(bytes(`[${"[],".repeat(100)}[]]`), 1000, 2)).toEqual({ _tag: "Within", values: 102 })
  })

  it("does not count brackets, commas or quotes inside strings", () => {
    const text = `["${"{[,:\\\"".repeat(1000)}"]`
    expect(JSON.parse(text)).toHaveLength(1)
    expect(measureJson(bytes(text), 2, 1)).toEqual({ _tag: "Within", values: 2 })
  })

  it("runs to the end of malformed text without failing (JSON.parse judges it)", () => {
    expect(measureJson(bytes("[\"unterminated"), 10)).toEqual({ _tag: "Within", values: 2 })
    expect(measureJson(bytes("]]}[1,"), 10)).toEqual({ _tag: "Within", values: 2 })
  })
})
