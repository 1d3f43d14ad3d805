import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { makeProductCodeIndex } from "../src/ProductCodeIndex.ts"

/** The reference: what `firstOrAdd` must answer, kept in a Map. */
const referenceIndex = () => {
  const firsts = new Map<string, number>()
  return (code: string, index: number): number | undefined => {
    const first = firsts.get(code)
    if (first === undefined) firsts.set(code, index)
    return first
  }
}

/** Few distinct characters and short codes, so that codes repeat, share prefixes and collide in small tables. */
const code = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: fc.constantFrom("A", "B", "0", "1", "-"), maxLength: 6 }) },
  { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom("a", "é", "ÿ", "\u0000"), maxLength: 4 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom("A", "Ā", "中", "😀"), maxLength: 3 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 20 }) }
)

describe("ProductCodeIndex", () => {
  it("answers as a Map of first occurrences, through every growth of its tables and with colliding hashes", () => {
    fc.assert(
      fc.property(fc.array(code, { maxLength: 400 }), fc.integer({ min: 1, max: 8 }), fc.constantFrom(31, 2, 0), (codes, expectedEntries, hashBits) => {
        const index = makeProductCodeIndex(expectedEntries, hashBits)
        const reference = referenceIndex()
        codes.forEach((c, i) => expect(index.firstOrAdd(c, i)).toBe(reference(c, i)))
        expect(index.size()).toBe(new Set(codes).size)
      }),
      { numRuns: 500 }
    )
  })

  it("keeps 100,000 distinct codes apart and finds each again at its first index", () => {
    const index = makeProductCodeIndex()
    const codes = Array.from({ length: 100_000 }, (_, i) => `PRD-${String(i).padStart(8, "0")}`)
    codes.forEach((c, i) => expect(index.firstOrAdd(c, i)).toBeUndefined())
    codes.forEach((c, i) => expect(index.firstOrAdd(c, i + 100_000)).toBe(i))
    expect(index.size()).toBe(100_000)
  })

  it("tells apart codes that differ only beyond Latin-1 or only in length", () => {
    const index = makeProductCodeIndex(1)
    expect(index.firstOrAdd("AĀ", 0)).toBeUndefined()
    expect(index.firstOrAdd("A\u0000", 1)).toBeUndefined()
    expect(index.firstOrAdd("A", 2)).toBeUndefined()
    expect(index.firstOrAdd("", 3)).toBeUndefined()
    expect([index.firstOrAdd("AĀ", 9), index.firstOrAdd("A\u0000", 9), index.firstOrAdd("A", 9), index.firstOrAdd("", 9)]).toEqual([0, 1, 2, 3])
  })

  it("hands over its entries as stored, then forgets them when cleared and takes new ones", () => {
    const index = makeProductCodeIndex(2)
    ;["AB", "Ā", "", "CDE"].forEach((c, i) => index.firstOrAdd(c, 10 + i))
    const { chars, count, firsts, starts, wide } = index.entries()
    const narrow = Array.from({ length: count }, (_, e) => [String.fromCharCode(...chars.subarray(starts[e]!, starts[e + 1]!)), firsts[e]])
    expect(narrow).toEqual([["AB", 10], ["", 12], ["CDE", 13]])
    expect([...wide]).toEqual([["Ā", 11]])
    index.clear()
    expect(index.size()).toBe(0)
    expect(index.firstOrAdd("CDE", 20)).toBeUndefined()
    expect(index.firstOrAdd("Ā", 21)).toBeUndefined()
    expect([index.firstOrAdd("CDE", 22), index.firstOrAdd("Ā", 22), index.firstOrAdd("AB", 22)]).toEqual([20, 21, undefined])
  })
})
