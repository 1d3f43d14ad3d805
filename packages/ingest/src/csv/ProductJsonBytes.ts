/** JSON.stringify's escapes for the control characters that have a short one (`\n`...); 0: `\u00XX`. */
const SHORT_ESCAPES = (() => {
  const table = new Uint8Array(32)
  table[8] = 98
  table[9] = 116
  table[10] = 110
  table[12] = 102
  table[13] = 114
  return table
})()
const HEX = Buffer.from("0123456789abcdef", "latin1")

/**
 * The accepted products' JSON of one join task, one after the other as UTF-8, with each product's end
 * offset. Grows as products are appended; the bytes live outside the JavaScript heap and are handed
 * over whole. Products come whole (`append`) or are written piece by piece and then ended (`end`), or
 * dropped (`drop`) when their writer gives up halfway.
 */
export class ProductJsonBytes {
  private bytes: Buffer
  /** Bytes written, the product being written included. */
  private length = 0
  readonly ends: Array<number> = []

  constructor(output: SharedArrayBuffer | undefined) {
    this.bytes = output === undefined ? Buffer.allocUnsafeSlow(256 * 1024) : Buffer.from(output)
  }

  /** Room for `extra` more bytes. */
  private ensure(extra: number): Buffer {
    const need = this.length + extra
    if (need <= this.bytes.length) return this.bytes
    const grown = Buffer.allocUnsafeSlow(Math.max(need, 2 * this.bytes.length))
    this.bytes.copy(grown, 0, 0, this.length)
    this.bytes = grown
    return grown
  }

  /** One whole product's JSON. */
  append(json: string): void {
    // At most 3 bytes per UTF-16 unit.
    const bytes = this.ensure(3 * json.length)
    this.length += bytes.write(json, this.length, "utf8")
    this.ends.push(this.length)
  }

  /** Ends the product written since the last end. */
  end(): void {
    this.ends.push(this.length)
  }

  /** Forgets what was written since the last end. */
  drop(): void {
    this.length = this.ends.length === 0 ? 0 : this.ends[this.ends.length - 1]!
  }

  /** Bytes as they are (ASCII JSON text made once, such as `,"key":`). */
  raw(text: Uint8Array): void {
    const bytes = this.ensure(text.length)
    bytes.set(text, this.length)
    this.length += text.length
  }

  /** Text of ASCII characters only (a number's digits): one byte each. */
  ascii(text: string): void {
    const bytes = this.ensure(text.length)
    let at = this.length
    for (let i = 0; i < text.length; i++) bytes[at++] = text.charCodeAt(i)
    this.length = at
  }

  /** `source[start, end)` as it is (ASCII digits of a number). */
  copy(source: Uint8Array, start: number, end: number): void {
    const bytes = this.ensure(end - start)
    let at = this.length
    for (let i = start; i < end; i++) bytes[at++] = source[i]!
    this.length = at
  }

  /**
   * The text of a CSV cell, the valid UTF-8 `source[start, end)` (inside its quotes when `quoted`: a
   * doubled quote there stands for one), as a JSON string written as `JSON.stringify` writes it, quotes
   * included. Answers its length in UTF-16 units, or -1 (what was written then is garbage, to be
   * dropped) when it holds what the schema refuses: a NUL (valid UTF-8 holds no lone surrogate).
   */
  cellString(source: Uint8Array, start: number, end: number, quoted: boolean): number {
    const bytes = this.ensure(6 * (end - start) + 2)
    let at = this.length
    // UTF-16 units: one per byte that starts a character, two for a 4-byte one (a surrogate pair).
    let units = 0
    bytes[at++] = 34
    for (let i = start; i < end; i++) {
      const c = source[i]!
      if (c >= 0x20 && c < 0x80) {
        units++
        if (c === 34) {
          // Only a doubled quote can be inside a quoted cell (the line was split so); unquoted, a quote is a character.
          if (quoted) i++
          bytes[at++] = 92
        } else if (c === 92) {
          bytes[at++] = 92
        }
        bytes[at++] = c
      } else if (c >= 0x80) {
        bytes[at++] = c
        if (c >= 0xc0) units += c >= 0xf0 ? 2 : 1
      } else {
        if (c === 0) return -1
        units++
        bytes[at++] = 92
        const short = SHORT_ESCAPES[c]!
        if (short !== 0) {
          bytes[at++] = short
        } else {
          bytes[at++] = 117
          bytes[at++] = 48
          bytes[at++] = 48
          bytes[at++] = HEX[c >> 4]!
          bytes[at++] = HEX[c & 15]!
        }
      }
    }
    bytes[at++] = 34
    this.length = at
    return units
  }

  get written(): Uint8Array {
    return this.bytes.subarray(0, this.ends.length === 0 ? 0 : this.ends[this.ends.length - 1]!)
  }
}
