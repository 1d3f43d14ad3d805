import { Config, Schema } from "effect"

/** The range a whole-number setting must fall in, and what a value means when it is worth saying (`0: off`). */
export interface IntegerRange {
  readonly min: number
  readonly max?: number
  readonly note?: string
}

const described = (name: string, range: IntegerRange, kind: string): string => {
  const bounds = range.max === undefined ? `of at least ${range.min}` : `from ${range.min} to ${range.max}`
  return `${name} must be ${kind} ${bounds}${range.note === undefined ? "" : ` (${range.note})`}`
}

const inRange = (range: IntegerRange) => (n: number): boolean =>
  Number.isFinite(n) && n >= range.min && (range.max === undefined || n <= range.max)

/**
 * A whole-number setting: unset takes `fallback`; set but not a whole number in `range` fails
 * with one sentence naming the variable and the range (every setting says it the same way).
 */
export const integer = (name: string, fallback: number, range: IntegerRange): Config.Config<number> =>
  Config.schema(Schema.Int.check(Schema.makeFilter(inRange(range), { message: described(name, range, "an integer") })), name).pipe(
    Config.withDefault(fallback)
  )

/** A whole number of at least 1: sizes, counts, timeouts that cannot be off. */
export const positiveInteger = (name: string, fallback: number): Config.Config<number> => integer(name, fallback, { min: 1 })

/** A number (fractions allowed) in `range`, as `integer` otherwise. */
export const number = (name: string, fallback: number, range: IntegerRange): Config.Config<number> =>
  Config.schema(Schema.Number.check(Schema.makeFilter(inRange(range), { message: described(name, range, "a number") })), name).pipe(
    Config.withDefault(fallback)
  )
