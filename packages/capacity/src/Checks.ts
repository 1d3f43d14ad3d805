import { Schema } from "effect"

/**
 * The checks of the capacity schemas, titled and described as Effect 3's filters of the same name
 * were: the field messages of a rejected document quote these words (`Expected Int & positive |
 * undefined, actual 0`), and SchemaExplain.ts words them as Effect 3 did, from these annotations.
 * They are Effect's own checks (so the compiled request decoders recognise them), only annotated.
 */

type Message = string | undefined

const annotations = (title: string | undefined, description: string, message: Message): Schema.Annotations.Filter => ({
  ...(title === undefined ? {} : { title }),
  description,
  ...(message === undefined ? {} : { message })
})

/** Effect 3's `Schema.Int`: a safe integer, named "Int". */
export const Int = Schema.Number.check(Schema.isInt({ identifier: "Int", title: "int", description: "an integer" }))

/** Effect 3's `positive`: > 0. */
export const positive = (message?: Message) => Schema.isGreaterThan(0, annotations("positive", "a positive number", message))

/** Effect 3's `nonNegative`: >= 0. */
export const nonNegative = (message?: Message) =>
  Schema.isGreaterThanOrEqualTo(0, annotations("nonNegative", "a non-negative number", message))

/** Effect 3's `between`: inclusive at both ends. */
export const between = (minimum: number, maximum: number, message?: Message) =>
  Schema.isBetween({ minimum, maximum }, annotations(`between(${minimum}, ${maximum})`, `a number between ${minimum} and ${maximum}`, message))

/** Effect 3's `minLength` of a string. */
export const minLength = (length: number, message?: Message) =>
  Schema.isMinLength(length, annotations(`minLength(${length})`, `a string at least ${length} character(s) long`, message))

/** Marks a check Effect 3 called stable: run on an array even when some of its items failed (SchemaExplain.ts). */
export const STABLE_FILTER = "capacity/stableFilter"

/** Effect 3's `minItems` of an array. */
export const minItems = (count: number, message?: Message) =>
  Schema.isMinLength(count, {
    ...annotations(`minItems(${count})`, `an array of at least ${count} item(s)`, message),
    [STABLE_FILTER]: true
  })

/** Effect 3's `pattern` (untitled: a pattern can be long). */
export const pattern = (regex: RegExp, message?: Message) =>
  Schema.isPattern(regex, annotations(undefined, `a string matching the pattern ${regex.source}`, message))

/** Effect 3's `filter` with only a message: neither titled nor described. */
export const filter = <T>(predicate: (value: T) => boolean, message: string) =>
  Schema.makeFilter<T>((value) => predicate(value), { message })

/** Effect 3's `maxLength` of a string. */
export const maxLength = (length: number, message?: Message) =>
  Schema.isMaxLength(length, annotations(`maxLength(${length})`, `a string at most ${length} character(s) long`, message))

/**
 * Most characters of a SKU or an order id: it is part of a PostgreSQL key (an index row holds at
 * most 2,704 bytes). In a URL path (GET /v1/stock/{sku}, DELETE .../{orderId}) a longer one is a
 * 400 naming the parameter (the public router's own limit is lifted: services/server, Server.ts).
 */
export const MAX_CODE_LENGTH = 100

/** U+0000, which PostgreSQL's text and jsonb refuse, or half of a surrogate pair, which it would store as U+FFFD. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** Text PostgreSQL stores as it was sent, so what is read back is what was written. */
export const isStorableText = (text: string): boolean => !UNSTORABLE.test(text)

export const UNSTORABLE_TEXT = "must not contain U+0000 or an unpaired surrogate"

/** Refuses text `isStorableText` refuses. */
export const storable = Schema.makeFilter<string>((text) => isStorableText(text), annotations("storableText", "text PostgreSQL stores as sent", UNSTORABLE_TEXT))
