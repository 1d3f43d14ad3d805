import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import fc from "fast-check"
import { makeFastDecoder, OptionalText } from "@retail/domain"

/**
 * FastDecode checks the checks it knows by their representation id inline, from the parameters Schema's
 * constructors record (KnownRefinements.ts). Each must accept exactly what the filter it stands for
 * accepts, at its boundaries and on values of the wrong kind, alone and beside filters it does
 * not know.
 */
const Checked = Schema.Struct({
  code: Schema.String.check(Schema.isMinLength(2), Schema.isMaxLength(4), Schema.isPattern(/^a/g)),
  text: OptionalText,
  count: Schema.Number.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 5 })),
  amount: Schema.Number.check(Schema.isFinite(), Schema.isGreaterThanOrEqualTo(0)),
  floor: Schema.Number.check(Schema.isGreaterThanOrEqualTo(-2)),
  odd: Schema.Number.check(Schema.isInt(), Schema.makeFilter((n: number) => n % 2 === 1), Schema.isLessThan(10)),
  above: Schema.Number.check(Schema.isGreaterThan(0)),
  within: Schema.Number.check(Schema.isBetween({ minimum: 0, maximum: 1, exclusiveMinimum: true, exclusiveMaximum: true }))
})

const decodeWithSchema = Schema.decodeUnknownResult(Checked, { errors: "all", onExcessProperty: "ignore" })
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
        fc.record({
          code: fc.oneof(text, anything),
          text: text,
          count: number,
          amount: number,
          floor: number,
          odd: number,
          // Mostly valid, so that the fields above still decide most answers.
          above: fc.oneof({ weight: 1, arbitrary: number }, { weight: 9, arbitrary: fc.double({ min: Number.MIN_VALUE, max: 10, noNaN: true }) }),
          within: fc.oneof({ weight: 1, arbitrary: number }, { weight: 9, arbitrary: fc.double({ min: 0, max: 1, noNaN: true }) })
        }),
        (input) => {
          const reference = decodeWithSchema(input)
          const fast = fastDecode(input)
          if (Result.isSuccess(reference)) {
            accepted++
            expect(fast).toStrictEqual(reference.success)
          } else expect(fast).toBeUndefined()
        }
      ),
      { numRuns: 20_000, seed: 20261123 }
    )
    expect(accepted).toBeGreaterThan(20)
  })

  it("check each boundary on its own", () => {
    const valid = { code: "abc", text: "", count: 3, amount: 0, floor: -2, odd: 9, above: 0.5, within: 0.5 }
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
      { odd: 11 },
      { above: 0 },
      { above: NaN },
      { within: 0 },
      { within: 1 },
      { within: NaN }
    ]
    for (const change of broken) {
      const input = { ...valid, ...change }
      expect(Result.isFailure(decodeWithSchema(input))).toBe(true)
      expect(fastDecode(input)).toBeUndefined()
    }
  })
})
