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

  /** `line[start, end)`, ASCII characters only: one byte each. */
  asciiFrom(line: string, start: number, end: number): void {
    const bytes = this.ensure(end - start)
    let at = this.length
    for (let i = start; i < end; i++) bytes[at++] = line.charCodeAt(i)
    this.length = at
  }

  /**
   * The text of a CSV cell, `line[start, end)` (inside its quotes when `quoted`: a doubled quote there
   * stands for one), as a JSON string written as `JSON.stringify` writes it, quotes included. Answers its
   * length in UTF-16 units, or -1 (what was written then is garbage, to be dropped) when it holds what the
   * schema refuses: a NUL or a lone surrogate.
   */
  cellString(line: string, start: number, end: number, quoted: boolean): number {
    const bytes = this.ensure(6 * (end - start) + 2)
    let at = this.length
    let units = 0
    bytes[at++] = 34
    for (let i = start; i < end; i++) {
      const c = line.charCodeAt(i)
      units++
      if (c >= 0x20 && c < 0x80) {
        if (c === 34) {
          // Only a doubled quote can be inside a quoted cell (the line was split so); unquoted, a quote is a character.
          if (quoted) i++
          bytes[at++] = 92
        } else if (c === 92) {
          bytes[at++] = 92
        }
        bytes[at++] = c
      } else if (c < 0x20) {
        if (c === 0) return -1
        bytes[at++] = 92
        const short = SHORT_ESCAPES[c]
        if (short !== 0) {
          bytes[at++] = short!
        } else {
          bytes[at++] = 117
          bytes[at++] = 48
          bytes[at++] = 48
          bytes[at++] = HEX[c >> 4]!
          bytes[at++] = HEX[c & 15]!
        }
      } else if (c < 0x800) {
        bytes[at++] = 0xc0 | (c >> 6)
        bytes[at++] = 0x80 | (c & 0x3f)
      } else if (c < 0xd800 || c > 0xdfff) {
        bytes[at++] = 0xe0 | (c >> 12)
        bytes[at++] = 0x80 | ((c >> 6) & 0x3f)
        bytes[at++] = 0x80 | (c & 0x3f)
      } else {
        const next = i + 1 < end ? line.charCodeAt(i + 1) : 0
        if (c > 0xdbff || next < 0xdc00 || next > 0xdfff) return -1
        const point = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00)
        bytes[at++] = 0xf0 | (point >> 18)
        bytes[at++] = 0x80 | ((point >> 12) & 0x3f)
        bytes[at++] = 0x80 | ((point >> 6) & 0x3f)
        bytes[at++] = 0x80 | (point & 0x3f)
        i++
        units++
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
