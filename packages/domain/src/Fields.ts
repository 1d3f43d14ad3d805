import { Schema, type SchemaAST } from "effect"

/** Codes are identifiers; the spec does not bound them, we do, so one hostile field cannot bloat a load. */
export const MAX_CODE_LENGTH = 100
/** The spec recommends 255; longer descriptions are accepted and stored whole up to this hard limit. */
export const RECOMMENDED_DESCRIPTION_LENGTH = 255
export const MAX_DESCRIPTION_LENGTH = 4000
export const MAX_TEXT_LENGTH = 1000

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** Representation ids of the two filters below, by which FastDecode checks them without calling them. */
export const NoNulCheckId = "@retail/domain/isNoNul"
export const WellFormedCheckId = "@retail/domain/isWellFormed"

const hasNoNul = (value: string): boolean => !value.includes("\u0000")
/** ES2024's String.prototype.isWellFormed: no lone surrogate. Node.js 20 has it; the ES2023 lib we compile against does not declare it. */
export const isWellFormed = (value: string): boolean => (value as string & { isWellFormed(): boolean }).isWellFormed()

/**
 * A check that stops the others at its failure, as a chain of Effect 3 refinements did: the first
 * failing check of a field is the one its message reports, and the later ones do not run.
 */
const rule = <T>(check: SchemaAST.Filter<T>): SchemaAST.Filter<T> => check.abort()

/** PostgreSQL text and jsonb cannot hold U+0000 nor half a surrogate pair, so such text is refused, not mangled. */
const noNul = rule(Schema.makeFilter(hasNoNul, {
  message: "must not contain the NUL character (U+0000)",
  representation: { id: NoNulCheckId, payload: null }
}))
const wellFormed = rule(Schema.makeFilter(isWellFormed, {
  message: "must be well-formed Unicode (no lone surrogate)",
  representation: { id: WellFormedCheckId, payload: null }
}))

/** Text as it can be stored and reported: NUL and lone surrogates become U+FFFD. */
export const storableText = (value: string): string =>
  value.replace(/\u0000/g, "\uFFFD").replace(new RegExp(LONE_SURROGATE.source, "g"), "\uFFFD")

/**
 * The message of a value of the wrong type; each check carries its own, and the `title` (or
 * `description`) Effect 3 gave it, by which IssueFormat.ts writes a type as Effect 3 did.
 */
const AString = Schema.String.annotate({ message: "must be a string" })
const ANumber = Schema.Number.annotate({ message: "must be a number" })

const notEmpty = () => rule(Schema.isMinLength(1, { title: "minLength(1)", message: "must not be empty" }))

const text = (maxLength: number) =>
  AString.check(
    noNul,
    wellFormed,
    rule(Schema.isMaxLength(maxLength, { title: `maxLength(${maxLength})`, message: `must be at most ${maxLength} characters` }))
  )

export const RequiredCode = text(MAX_CODE_LENGTH).check(notEmpty())
export const OptionalText = text(MAX_TEXT_LENGTH)
export const RequiredText = OptionalText.check(notEmpty())
export const Description = text(MAX_DESCRIPTION_LENGTH).check(notEmpty())

export const Amount = ANumber.check(
  rule(Schema.isFinite({ title: "finite", message: "must be a finite number" })),
  rule(Schema.isGreaterThanOrEqualTo(0, { title: "nonNegative", message: "must not be negative" }))
)

export const PositiveInteger = ANumber.check(
  rule(Schema.isInt({ title: "int", message: "must be an integer" })),
  rule(Schema.isBetween({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }, {
    title: `between(1, ${Number.MAX_SAFE_INTEGER})`,
    message: `must be an integer from 1 to ${Number.MAX_SAFE_INTEGER}`
  }))
)

export const Integer = ANumber.check(
  rule(Schema.isInt({ title: "int", message: "must be an integer" })),
  rule(Schema.isBetween({ minimum: -2147483648, maximum: 2147483647 }, {
    title: "between(-2147483648, 2147483647)",
    message: "must be a 32-bit integer"
  }))
)

/** A union's message is its whole answer, whichever member failed and how (IssueFormat.ts). */
export const oneOf = <const L extends ReadonlyArray<string>>(...values: L) =>
  Schema.Literals(values).annotate({ message: `must be one of ${values.join(", ")}` })

export const nullableOneOf = <const L extends ReadonlyArray<string>>(...values: L) =>
  Schema.NullOr(Schema.Literals(values)).annotate({ message: `must be one of ${values.join(", ")} or null` })

export const nullable = <S extends Schema.Top>(schema: S, what: string) =>
  Schema.NullOr(schema).annotate({ message: `must be ${what} or null` })

export const TrueFalse = oneOf("T", "F")

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/

/** The number written by the `count` ASCII digits of `text` at `at`, -1 when one is not a digit. */
const digitsAt = (text: string, at: number, count: number): number => {
  let value = 0
  for (let i = at; i < at + count; i++) {
    const c = text.charCodeAt(i)
    if (c < 48 || c > 57) return -1
    value = 10 * value + c - 48
  }
  return value
}

/**
 * Is `value` a `YYYY-MM-DD HH:mm:ss` date and time that exists (what `DateTimeText` accepts)? Read
 * character by character rather than with DATE_TIME's captures: every product's dateUpdate goes
 * through here, and the match, its array and the numbers it was mapped to were 10-15% of a
 * validation thread's time.
 */
export const isRealDateTime = (value: string): boolean => {
  if (value.length !== 19) return false
  if (value.charCodeAt(4) !== 45 || value.charCodeAt(7) !== 45 || value.charCodeAt(10) !== 32 || value.charCodeAt(13) !== 58 || value.charCodeAt(16) !== 58) {
    return false
  }
  const year = digitsAt(value, 0, 4)
  const month = digitsAt(value, 5, 2)
  const day = digitsAt(value, 8, 2)
  const hour = digitsAt(value, 11, 2)
  const minute = digitsAt(value, 14, 2)
  const second = digitsAt(value, 17, 2)
  // There is no year 0 (PostgreSQL's timestamp refuses it), so 0001 is the first.
  if (year < 1 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return false
  // Date.UTC's years 0-99 are 1900-1999: the same leap years as 1-99.
  return day <= 28 || day <= new Date(Date.UTC(year, month, 0)).getUTCDate()
}

/** `YYYY-MM-DD HH:mm:ss`, a date and time that exist on the calendar; kept as the string it arrived as. */
export const DateTimeText = AString.check(
  rule(Schema.isPattern(DATE_TIME, {
    description: `a string matching the pattern ${DATE_TIME.source}`,
    message: "must have the shape YYYY-MM-DD HH:mm:ss"
  })),
  rule(Schema.makeFilter(isRealDateTime, { message: "must be a real date and time" }))
)

/** Compares two `YYYY-MM-DD HH:mm:ss` values; lexical order is chronological for this fixed shape. */
export const compareDateTimeText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)
