import type { ErrorFormat } from "./Answer.ts"

export type Variant = "A" | "B" | "NEITHER"

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Which variant a parsed body is, by shape (docs/capacity.md, "Telling the variants apart"):
 * B when the object has `saleChannel` or `deliveryData`; else A when `items` is an empty array
 * (variant A's 400 then names it) or some element of it is an object with `origin` or
 * `deliveryMode`; else neither.
 */
export const variantOf = (input: unknown): Variant => {
  if (!isRecord(input)) return "NEITHER"
  if ("saleChannel" in input || "deliveryData" in input) return "B"
  const items = input["items"]
  if (Array.isArray(items) && (items.length === 0 || items.some((item) => isRecord(item) && ("origin" in item || "deliveryMode" in item)))) {
    return "A"
  }
  return "NEITHER"
}

const SPACE = new Set([0x20, 0x09, 0x0a, 0x0d])
const MARKERS = new Set(["saleChannel", "deliveryData"])

const skipSpace = (text: string, at: number): number => {
  let i = at
  while (i < text.length && SPACE.has(text.charCodeAt(i))) i++
  return i
}

/** Index just past the string that opens at `at` (a `"`), or -1 when the text ends inside it. */
const stringEnd = (text: string, at: number): number => {
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x5c) i++
    else if (c === 0x22) return i + 1
  }
  return -1
}

/**
 * Whether a body reads as variant B for the format of an error answered without parsing it (401,
 * 413, 415, 429) or after parsing failed (malformed JSON): the text opens a JSON object one of
 * whose top-level keys, before the text ends or breaks, is `saleChannel` or `deliveryData` — the
 * same markers as `variantOf` (docs/capacity.md, "Telling the variants apart"). One pass over the
 * text, no value built; a well-formed body gives the same answer as `variantOf(JSON.parse(text)) === "B"`.
 */
export const readsAsVariantB = (text: string): boolean => {
  let i = skipSpace(text, 0)
  if (text.charCodeAt(i) !== 0x7b) return false
  i++
  for (;;) {
    i = skipSpace(text, i)
    if (text.charCodeAt(i) !== 0x22) return false
    const end = stringEnd(text, i)
    if (end === -1) return false
    const raw = text.slice(i + 1, end - 1)
    if (MARKERS.has(raw.includes("\\") ? unescaped(raw) : raw)) return true
    i = skipSpace(text, end)
    if (text.charCodeAt(i) !== 0x3a) return false
    // Skip the value: nested brackets and strings, up to the comma or brace that closes it.
    let depth = 0
    for (i++; ; i++) {
      if (i >= text.length) return false
      const c = text.charCodeAt(i)
      if (c === 0x22) {
        const after = stringEnd(text, i)
        if (after === -1) return false
        i = after - 1
      } else if (c === 0x7b || c === 0x5b) depth++
      else if (c === 0x7d || c === 0x5d) {
        if (depth === 0) return false
        depth--
      } else if (c === 0x2c && depth === 0) break
    }
    i++
  }
}

const unescaped = (raw: string): string => {
  try {
    const value: unknown = JSON.parse(`"${raw}"`)
    return typeof value === "string" ? value : raw
  } catch {
    return raw
  }
}

/** The error format of a body that may not be readable: variant B's when it reads as variant B. */
export const formatOf = (body: string): ErrorFormat => (readsAsVariantB(body) ? "B" : "A")
