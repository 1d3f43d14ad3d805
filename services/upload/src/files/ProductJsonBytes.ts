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

  /**
   * `text` as a JSON string, quotes included, when it needs no escape: false (and nothing written)
   * when it holds a character JSON escapes (`"`, `\`, below U+0020) or a surrogate, so the caller decides.
   */
  plainString(text: string): boolean {
    const bytes = this.ensure(3 * text.length + 2)
    let at = this.length
    bytes[at++] = 34
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i)
      if (c < 0x80) {
        if (c < 0x20 || c === 34 || c === 92) return false
        bytes[at++] = c
      } else if (c < 0x800) {
        bytes[at++] = 0xc0 | (c >> 6)
        bytes[at++] = 0x80 | (c & 0x3f)
      } else if (c >= 0xd800 && c <= 0xdfff) {
        return false
      } else {
        bytes[at++] = 0xe0 | (c >> 12)
        bytes[at++] = 0x80 | ((c >> 6) & 0x3f)
        bytes[at++] = 0x80 | (c & 0x3f)
      }
    }
    bytes[at++] = 34
    this.length = at
    return true
  }

  /** Any text (already JSON, or to be encoded as UTF-8 by Node). */
  text(text: string): void {
    const bytes = this.ensure(3 * text.length)
    this.length += bytes.write(text, this.length, "utf8")
  }

  get written(): Uint8Array {
    return this.bytes.subarray(0, this.ends.length === 0 ? 0 : this.ends[this.ends.length - 1]!)
  }
}
