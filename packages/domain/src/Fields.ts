import { Schema } from "effect"

/** Codes are identifiers; the spec does not bound them, we do, so one hostile field cannot bloat a load. */
export const MAX_CODE_LENGTH = 100
/** The spec recommends 255; longer descriptions are accepted and stored whole up to this hard limit. */
export const RECOMMENDED_DESCRIPTION_LENGTH = 255
export const MAX_DESCRIPTION_LENGTH = 4000
export const MAX_TEXT_LENGTH = 1000

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** Schema ids of the two filters below, by which FastDecode checks them without calling them. */
export const NoNulSchemaId: unique symbol = Symbol.for("@retail/domain/SchemaId/NoNul")
export const WellFormedSchemaId: unique symbol = Symbol.for("@retail/domain/SchemaId/WellFormed")

const hasNoNul = (value: string): boolean => !value.includes("\u0000")
/** ES2024's String.prototype.isWellFormed: no lone surrogate. Node.js 20 has it; the ES2023 lib we compile against does not declare it. */
export const isWellFormed = (value: string): boolean => (value as string & { isWellFormed(): boolean }).isWellFormed()

/** PostgreSQL text and jsonb cannot hold U+0000 nor half a surrogate pair, so such text is refused, not mangled. */
const storable = <A extends string, I, R>(schema: Schema.Schema<A, I, R>) =>
  schema.pipe(
    Schema.filter(hasNoNul, { schemaId: NoNulSchemaId, message: () => "must not contain the NUL character (U+0000)" }),
    Schema.filter(isWellFormed, { schemaId: WellFormedSchemaId, message: () => "must be well-formed Unicode (no lone surrogate)" })
  )

/** Text as it can be stored and reported: NUL and lone surrogates become U+FFFD. */
export const storableText = (value: string): string =>
  value.replace(/\u0000/g, "\uFFFD").replace(new RegExp(LONE_SURROGATE.source, "g"), "\uFFFD")

const text = (maxLength: number) =>
  storable(Schema.String.annotations({ message: () => "must be a string" })).pipe(
    Schema.maxLength(maxLength, { message: () => `must be at most ${maxLength} characters` })
  )

export const RequiredCode = text(MAX_CODE_LENGTH).pipe(
  Schema.minLength(1, { message: () => "must not be empty" })
)
export const OptionalText = text(MAX_TEXT_LENGTH)
export const RequiredText = OptionalText.pipe(Schema.minLength(1, { message: () => "must not be empty" }))
export const Description = text(MAX_DESCRIPTION_LENGTH).pipe(
  Schema.minLength(1, { message: () => "must not be empty" })
)

export const Amount = Schema.Number.annotations({ message: () => "must be a number" }).pipe(
  Schema.finite({ message: () => "must be a finite number" }),
  Schema.nonNegative({ message: () => "must not be negative" })
)

export const PositiveInteger = Schema.Number.annotations({ message: () => "must be a number" }).pipe(
  Schema.int({ message: () => "must be an integer" }),
  Schema.between(1, Number.MAX_SAFE_INTEGER, { message: () => `must be an integer from 1 to ${Number.MAX_SAFE_INTEGER}` })
)

export const Integer = Schema.Number.annotations({ message: () => "must be a number" }).pipe(
  Schema.int({ message: () => "must be an integer" }),
  Schema.between(-2147483648, 2147483647, { message: () => "must be a 32-bit integer" })
)

export const oneOf = <const L extends ReadonlyArray<string>>(...values: L) =>
  Schema.Literal(...values).annotations({
    message: () => ({ message: `must be one of ${values.join(", ")}`, override: true })
  })

export const nullableOneOf = <const L extends ReadonlyArray<string>>(...values: L) =>
  Schema.NullOr(Schema.Literal(...values)).annotations({
    message: () => ({ message: `must be one of ${values.join(", ")} or null`, override: true })
  })

export const nullable = <A, I>(schema: Schema.Schema<A, I>, what: string) =>
  Schema.NullOr(schema).annotations({
    message: () => ({ message: `must be ${what} or null`, override: true })
  })

export const TrueFalse = oneOf("T", "F")

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/

/** Is `value` a `YYYY-MM-DD HH:mm:ss` date and time that exists (what `DateTimeText` accepts)? */
export const isRealDateTime = (value: string): boolean => {
  const match = DATE_TIME.exec(value)
  if (match === null) return false
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [number, number, number, number, number, number]
  // There is no year 0 (PostgreSQL's timestamp refuses it), so 0001 is the first.
  if (year < 1 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return false
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate()
}

/** `YYYY-MM-DD HH:mm:ss`, a date and time that exist on the calendar; kept as the string it arrived as. */
export const DateTimeText = Schema.String.annotations({ message: () => "must be a string" }).pipe(
  Schema.pattern(DATE_TIME, { message: () => "must have the shape YYYY-MM-DD HH:mm:ss" }),
  Schema.filter(isRealDateTime, { message: () => "must be a real date and time" })
)

/** Compares two `YYYY-MM-DD HH:mm:ss` values; lexical order is chronological for this fixed shape. */
export const compareDateTimeText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)
