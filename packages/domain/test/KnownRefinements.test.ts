import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import fc from "fast-check"
import { makeFastDecoder, OptionalText } from "@retail/domain"

/**
 * FastDecode checks the refinements it knows by their schema id inline, from the parameters Schema's
 * constructors record (KnownRefinements.ts). Each must accept exactly what the filter it stands for
 * accepts, at its boundaries and on values of the wrong kind, alone and chained with filters it does
 * not know.
 */
const Checked = Schema.Struct({
  code: Schema.String.pipe(Schema.minLength(2), Schema.maxLength(4), Schema.pattern(/^a/g)),
  text: OptionalText,
  count: Schema.Number.pipe(Schema.int(), Schema.between(1, 5)),
  amount: Schema.Number.pipe(Schema.finite(), Schema.nonNegative()),
  floor: Schema.Number.pipe(Schema.greaterThanOrEqualTo(-2)),
  odd: Schema.Number.pipe(Schema.int(), Schema.filter((n) => n % 2 === 1), Schema.lessThan(10))
})

const decodeWithSchema = Schema.decodeUnknownEither(Checked, { errors: "all", onExcessProperty: "ignore" })
const fastDecode = makeFastDecoder(Checked)

const text = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.constantFrom("a", "ab", "abcd", "abcde", "ba", "a\u0000b", "a\uD800", "a\uDC00b", "a\uD83D\uDE00", "x".repeat(1001))
)
const number = fc.oneof(
  fc.integer({ min: -4, max: 12 }),
  fc.double(),
  fc.constantFrom(0, -0, 0.5, 1, 5, 5.5, -2, -2.5, NaN, Infinity, -Infinity, 2 ** 53)
)
const anything = fc.oneof(text, number, fc.constantFrom(null, undefined, true, [], {}))

describe("refinements checked inline by FastDecode", () => {
  it("accept exactly what Schema's filters accept", () => {
    let accepted = 0
    fc.assert(
      fc.property(
        fc.record({ code: fc.oneof(text, anything), text: text, count: number, amount: number, floor: number, odd: number }),
        (input) => {
          const reference = decodeWithSchema(input)
          const fast = fastDecode(input)
          if (Either.isRight(reference)) {
            accepted++
            expect(fast).toStrictEqual(reference.right)
          } else expect(fast).toBeUndefined()
        }
      ),
      { numRuns: 20_000, seed: 20261123 }
    )
    expect(accepted).toBeGreaterThan(20)
  })

  it("check each boundary on its own", () => {
    const valid = { code: "abc", text: "", count: 3, amount: 0, floor: -2, odd: 9 }
    expect(fastDecode(valid)).toStrictEqual(valid)
    const broken: ReadonlyArray<Partial<Record<keyof typeof valid, unknown>>> = [
      { code: "a" },
      { code: "abcde" },
      { code: "bcd" },
      { text: "x".repeat(1001) },
      { text: "a\u0000" },
      { text: "\uDC00" },
      { count: 0 },
      { count: 6 },
      { count: 2.5 },
      { amount: -1 },
      { amount: Infinity },
      { amount: NaN },
      { floor: -2.01 },
      { floor: NaN },
      { odd: 8 },
      { odd: 11 }
    ]
    for (const change of broken) {
      const input = { ...valid, ...change }
      expect(Either.isLeft(decodeWithSchema(input))).toBe(true)
      expect(fastDecode(input)).toBeUndefined()
    }
  })
})
