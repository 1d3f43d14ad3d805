/**
 * PostgreSQL's binary format of one-dimensional arrays (array_recv: ndim, has-null flag, element
 * OID, length and lower bound, then each element as an int32 length and its bytes, -1 for NULL),
 * written one after another into a single growing buffer. PgTypes' own encoder allocates a byte
 * array per element, which costs more than the columns are worth at intake.
 */
const ASCII_LOOP_MAX = 64

export class BinaryArrayWriter {
  private bytes: Buffer
  private at = 0

  constructor(capacity = 64 * 1024) {
    this.bytes = Buffer.allocUnsafe(capacity)
  }

  private room(size: number): void {
    if (this.at + size <= this.bytes.length) return
    const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.at + size))
    this.bytes.copy(grown, 0, 0, this.at)
    this.bytes = grown
  }

  int32(value: number): void {
    this.room(4)
    this.put32(value, this.at)
    this.at += 4
  }

  private put32(value: number, at: number): void {
    const b = this.bytes
    b[at] = value >>> 24
    b[at + 1] = value >>> 16
    b[at + 2] = value >>> 8
    b[at + 3] = value
  }

  /** Leaves an int32 to be filled later (a length, or a flag known only at the end); returns where it is. */
  reserve(): number {
    const at = this.at
    this.int32(0)
    return at
  }

  fill(at: number, value: number): void {
    this.put32(value, at)
  }

  get offset(): number {
    return this.at
  }

  raw(bytes: Uint8Array): void {
    this.room(bytes.length)
    this.bytes.set(bytes, this.at)
    this.at += bytes.length
  }

  /**
   * Starts an array of `count` elements, which the caller writes next; returns where its has-null
   * flag is (to `fill` with 1 when an element was NULL), or -1 for an empty array (no elements follow).
   */
  arrayHeader(elementOid: number, count: number): number {
    if (count === 0) {
      this.int32(0)
      this.int32(0)
      this.int32(elementOid)
      return -1
    }
    this.int32(1)
    const hasNull = this.reserve()
    this.int32(elementOid)
    this.int32(count)
    this.int32(1)
    return hasNull
  }

  /** Writes one array whose `count` elements `element` gives, each written by `write`. */
  array<A>(elementOid: number, count: number, element: (i: number) => A | null | undefined, write: (value: A) => void): void {
    const hasNull = this.arrayHeader(elementOid, count)
    if (hasNull === -1) return
    let nulls = 0
    for (let i = 0; i < count; i++) {
      const value = element(i)
      if (value === null || value === undefined) {
        this.int32(-1)
        nulls = 1
      } else write(value)
    }
    this.fill(hasNull, nulls)
  }

  /** Short ASCII text byte by byte: a call into Buffer#write costs more than the copy. */
  text = (value: string): void => {
    const length = value.length
    this.room(4 + length * 3)
    const b = this.bytes
    const start = this.at + 4
    if (length <= ASCII_LOOP_MAX) {
      let i = 0
      for (; i < length; i++) {
        const c = value.charCodeAt(i)
        if (c > 0x7f) break
        b[start + i] = c
      }
      if (i === length) {
        this.put32(length, this.at)
        this.at = start + length
        return
      }
    }
    const written = b.write(value, start, "utf8")
    this.put32(written, this.at)
    this.at = start + written
  }

  float8 = (value: number): void => {
    this.room(12)
    this.put32(8, this.at)
    this.bytes.writeDoubleBE(value, this.at + 4)
    this.at += 12
  }

  int4 = (value: number): void => {
    this.room(8)
    this.put32(4, this.at)
    this.put32(value, this.at + 4)
    this.at += 8
  }

  /** The bytes written so far, copied into `allocate`d memory. */
  take(allocate: (length: number) => Uint8Array = (length) => new Uint8Array(length)): Uint8Array {
    const out = allocate(this.at)
    out.set(this.bytes.subarray(0, this.at), 0)
    this.at = 0
    return out
  }
}
