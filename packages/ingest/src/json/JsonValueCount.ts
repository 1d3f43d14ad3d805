import { MAX_JSON_DEPTH } from "./JsonDepth.ts"

/** What a byte pass over a JSON text found, before anything was parsed. */
export type JsonSize =
  | { readonly _tag: "Within"; readonly values: number }
  | { readonly _tag: "TooManyValues"; readonly offset: number }
  | { readonly _tag: "TooDeep"; readonly offset: number }

const QUOTE = 0x22
const BACKSLASH = 0x5c

/** Bytes that end a number or literal: whitespace, `,` `:` brackets and braces, a quote. */
const ENDS_SCALAR = new Uint8Array(256)
for (const b of [0x20, 0x09, 0x0a, 0x0d, 0x2c, 0x3a, 0x5b, 0x5d, 0x7b, 0x7d, QUOTE]) ENDS_SCALAR[b] = 1

/** Index just past the string whose opening quote is at `open` (the length when it never closes). */
const endOfString = (bytes: Uint8Array, open: number): number => {
  let from = open + 1
  for (;;) {
    const quote = bytes.indexOf(QUOTE, from)
    if (quote < 0) return bytes.length
    let backslashes = 0
    while (quote - backslashes - 1 >= from && bytes[quote - backslashes - 1] === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return quote + 1
    from = quote + 1
  }
}

/**
 * Counts the values of a JSON text (objects, arrays, strings, numbers, literals, and member names,
 * each of which JSON.parse would allocate) and its nesting, stopping at the first value past
 * `maxValues` or the first bracket deeper than `maxDepth`. JSON.parse's heap grows with values, not
 * bytes (3 bytes of `{},` cost about 67 bytes of heap), so a body is measured before it is parsed.
 * Not a validator: malformed text is counted as far as it goes and left to JSON.parse.
 */
export const measureJson = (bytes: Uint8Array, maxValues: number, maxDepth: number = MAX_JSON_DEPTH): JsonSize => {
  const length = bytes.length
  let values = 0
  let depth = 0
  let i = 0
  while (i < length) {
    const b = bytes[i]!
    if (b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09 || b === 0x2c || b === 0x3a) {
      i++
      continue
    }
    if (b === 0x7d || b === 0x5d) {
      depth--
      i++
      continue
    }
    if (++values > maxValues) return { _tag: "TooManyValues", offset: i }
    if (b === QUOTE) {
      i = endOfString(bytes, i)
    } else if (b === 0x7b || b === 0x5b) {
      if (++depth > maxDepth) return { _tag: "TooDeep", offset: i }
      i++
    } else {
      i++
      while (i < length && ENDS_SCALAR[bytes[i]!] === 0) i++
    }
  }
  return { _tag: "Within", values }
}
