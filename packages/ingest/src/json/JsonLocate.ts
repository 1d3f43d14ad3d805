import { describeChar } from "./JsonSyntaxError.ts"

export interface JsonFault {
  /** Offset within the checked bytes. */
  readonly at: number
  readonly reason: string
}

const isWs = (b: number): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09
const isDigit = (b: number): boolean => b >= 0x30 && b <= 0x39
const isHex = (b: number): boolean => isDigit(b) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66)

const OBJECT = 1
const ARRAY = 2

/**
 * Finds the first RFC 8259 violation in bytes holding exactly one JSON value. Slow path, used only
 * after JSON.parse rejected an element, to say where. Iterative: nesting depth costs heap, not stack.
 */
export const locateJsonFault = (bytes: Uint8Array): JsonFault | undefined => {
  const n = bytes.length
  const stack: Array<number> = []
  const unexpected = (i: number, expected: string): JsonFault => ({
    at: i,
    reason: i >= n ? `unexpected end of value: expected ${expected}` : `unexpected character ${describeChar(bytes, i)}: expected ${expected}`
  })
  const skipWs = (i: number): number => {
    while (i < n && isWs(bytes[i]!)) i++
    return i
  }
  // Returns the index after the string starting at the quote at i, or a fault.
  const string = (i: number): number | JsonFault => {
    for (let j = i + 1; j < n; j++) {
      const b = bytes[j]!
      if (b === 0x22) return j + 1
      if (b < 0x20) return { at: j, reason: `unescaped ${describeChar(bytes, j)} inside a string` }
      if (b === 0x5c) {
        const e = bytes[j + 1]
        if (e === 0x75) {
          for (let k = 2; k < 6; k++) if (!isHex(bytes[j + k] ?? 0)) return { at: j, reason: "invalid \\u escape: expected 4 hex digits" }
          j += 5
        } else if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
          j += 1
        } else {
          return { at: j, reason: e === undefined ? "unexpected end of value inside a string" : `invalid escape \\${String.fromCharCode(e)}` }
        }
      }
    }
    return { at: n, reason: "unexpected end of value: string not closed" }
  }
  const number = (i: number): number | JsonFault => {
    let j = i
    if (bytes[j] === 0x2d) j++
    if (bytes[j] === 0x30) j++
    else if (isDigit(bytes[j] ?? 0)) while (isDigit(bytes[j] ?? 0)) j++
    else return unexpected(j, "a digit")
    if (bytes[j] === 0x2e) {
      j++
      if (!isDigit(bytes[j] ?? 0)) return unexpected(j, "a digit after '.'")
      while (isDigit(bytes[j] ?? 0)) j++
    }
    if (bytes[j] === 0x65 || bytes[j] === 0x45) {
      j++
      if (bytes[j] === 0x2b || bytes[j] === 0x2d) j++
      if (!isDigit(bytes[j] ?? 0)) return unexpected(j, "a digit in the exponent")
      while (isDigit(bytes[j] ?? 0)) j++
    }
    return j
  }
  const literal = (i: number, word: string): number | JsonFault => {
    for (let k = 0; k < word.length; k++) {
      if (bytes[i + k] !== word.charCodeAt(k)) return unexpected(i + k, `'${word}'`)
    }
    return i + word.length
  }

  let i = skipWs(0)
  for (;;) {
    // A value starts at i.
    const b = bytes[i]
    let next: number | JsonFault
    if (b === 0x7b) {
      i = skipWs(i + 1)
      if (bytes[i] === 0x7d) next = i + 1
      else {
        stack.push(OBJECT)
        if (bytes[i] !== 0x22) return unexpected(i, "a key string or '}'")
        const k = string(i)
        if (typeof k !== "number") return k
        i = skipWs(k)
        if (bytes[i] !== 0x3a) return unexpected(i, "':'")
        i = skipWs(i + 1)
        continue
      }
    } else if (b === 0x5b) {
      i = skipWs(i + 1)
      if (bytes[i] === 0x5d) next = i + 1
      else {
        stack.push(ARRAY)
        continue
      }
    } else if (b === 0x22) next = string(i)
    else if (b === 0x2d || isDigit(b ?? -1)) next = number(i)
    else if (b === 0x74) next = literal(i, "true")
    else if (b === 0x66) next = literal(i, "false")
    else if (b === 0x6e) next = literal(i, "null")
    else return unexpected(i, "a value")
    if (typeof next !== "number") return next
    i = skipWs(next)
    // After a value: close containers or move to the next member.
    for (;;) {
      const top = stack[stack.length - 1]
      if (top === undefined) return i < n ? unexpected(i, "end of value") : undefined
      const c = bytes[i]
      if (c === 0x2c) {
        i = skipWs(i + 1)
        if (top === OBJECT) {
          if (bytes[i] !== 0x22) return unexpected(i, "a key string")
          const k = string(i)
          if (typeof k !== "number") return k
          i = skipWs(k)
          if (bytes[i] !== 0x3a) return unexpected(i, "':'")
          i = skipWs(i + 1)
        }
        break
      }
      if ((top === OBJECT && c === 0x7d) || (top === ARRAY && c === 0x5d)) {
        stack.pop()
        i = skipWs(i + 1)
        continue
      }
      return unexpected(i, top === OBJECT ? "',' or '}'" : "',' or ']'")
    }
  }
}
