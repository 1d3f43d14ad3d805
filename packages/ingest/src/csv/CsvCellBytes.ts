/** Checks on a CSV cell's bytes (ASCII digits and punctuation) that the string path makes on its text. */

const isDigit = (c: number): boolean => c >= 48 && c <= 57

/**
 * Is `bytes[start, end)` a non-negative number that `String(Number(text))` writes back as the same text?
 * Conservative: at most 15 significant digits (any such decimal is the shortest text of its double),
 * no sign, exponent, space, leading or trailing zero that String would drop, nor a value under 1e-6
 * (written with an exponent) but 0; a fraction only when `fraction`.
 */
export const isPlainNumber = (bytes: Uint8Array, start: number, end: number, fraction: boolean): boolean => {
  if (start === end) return false
  let i = start
  const first = bytes[i]!
  if (first === 48) {
    i++
  } else {
    if (first < 49 || first > 57) return false
    while (i < end && isDigit(bytes[i]!)) i++
  }
  const integerDigits = first === 48 ? 0 : i - start
  if (i === end) return integerDigits <= 15
  if (!fraction || bytes[i] !== 46) return false
  const fractionStart = ++i
  while (i < end && isDigit(bytes[i]!)) i++
  if (i !== end || i === fractionStart || bytes[end - 1] === 48) return false
  let leadingZeros = 0
  if (integerDigits === 0) {
    while (bytes[fractionStart + leadingZeros] === 48) leadingZeros++
    if (leadingZeros > 5) return false
  }
  return integerDigits + (end - fractionStart) - leadingZeros <= 15
}

/** The number written by the `count` ASCII digits at bytes[at], -1 when one is not a digit. */
const digitsAt = (bytes: Uint8Array, at: number, count: number): number => {
  let value = 0
  for (let i = at; i < at + count; i++) {
    const c = bytes[i]!
    if (!isDigit(c)) return -1
    value = 10 * value + c - 48
  }
  return value
}

/** `isRealDateTime` (packages/domain Fields.ts: a `YYYY-MM-DD HH:mm:ss` that exists) of the text bytes[start, end). */
export const isRealDateTimeBytes = (bytes: Uint8Array, start: number, end: number): boolean => {
  if (end - start !== 19) return false
  if (bytes[start + 4] !== 45 || bytes[start + 7] !== 45 || bytes[start + 10] !== 32 || bytes[start + 13] !== 58 || bytes[start + 16] !== 58) return false
  const year = digitsAt(bytes, start, 4)
  const month = digitsAt(bytes, start + 5, 2)
  const day = digitsAt(bytes, start + 8, 2)
  const hour = digitsAt(bytes, start + 11, 2)
  const minute = digitsAt(bytes, start + 14, 2)
  const second = digitsAt(bytes, start + 17, 2)
  if (year < 1 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return false
  // As the domain counts a month's days (Date.UTC's years 0-99 are 1900-1999: the same leap years).
  return day <= 28 || day <= new Date(Date.UTC(year, month, 0)).getUTCDate()
}
