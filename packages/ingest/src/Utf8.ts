import { isUtf8 } from "node:buffer"

/** Length of the UTF-8 sequence a lead byte announces; 1 for ASCII and for bytes that cannot lead (so validation rejects them). */
export const utf8SequenceLength = (lead: number): number =>
  lead < 0xc2 ? 1 : lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : lead < 0xf5 ? 4 : 1

/** Index where an incomplete trailing sequence starts in bytes[from, to), or `to` when the range ends on a character boundary. */
export const incompleteTailStart = (bytes: Uint8Array, from: number, to: number): number => {
  const stop = Math.max(from, to - 3)
  for (let k = to - 1; k >= stop; k--) {
    const b = bytes[k]!
    if ((b & 0xc0) !== 0x80) return to - k < utf8SequenceLength(b) ? k : to
  }
  return to
}

/** Offset of the first byte that does not belong to a valid UTF-8 sequence in bytes[from, to), or -1. Error path only. */
export const firstInvalidUtf8 = (bytes: Uint8Array, from: number, to: number): number => {
  let i = from
  while (i < to) {
    const b = bytes[i]!
    if (b < 0x80) {
      i++
      continue
    }
    const len = utf8SequenceLength(b)
    if (len === 1 || i + len > to) return i
    const b1 = bytes[i + 1]!
    // Overlong 3/4-byte forms, surrogates and code points above U+10FFFF are invalid (RFC 3629).
    if ((b1 & 0xc0) !== 0x80) return i
    if (b === 0xe0 && b1 < 0xa0) return i
    if (b === 0xed && b1 > 0x9f) return i
    if (b === 0xf0 && b1 < 0x90) return i
    if (b === 0xf4 && b1 > 0x8f) return i
    for (let k = 2; k < len; k++) if ((bytes[i + k]! & 0xc0) !== 0x80) return i
    i += len
  }
  return -1
}

/**
 * Checks UTF-8 validity of a byte stream fed in chunks of any size: a character cut by a chunk
 * boundary is held back (at most 3 bytes) and checked with the next chunk.
 */
export class Utf8StreamValidator {
  private tail = new Uint8Array(4)
  private tailLen = 0
  private consumed = 0

  /** Feeds the next chunk; returns the absolute offset of the first invalid byte, or -1. */
  push(chunk: Uint8Array): number {
    const n = chunk.length
    let start = 0
    if (this.tailLen > 0) {
      const tailStart = this.consumed - this.tailLen
      const need = utf8SequenceLength(this.tail[0]!) - this.tailLen
      const take = Math.min(need, n)
      for (let k = 0; k < take; k++) {
        const b = chunk[k]!
        if ((b & 0xc0) !== 0x80) return tailStart
        this.tail[this.tailLen++] = b
      }
      if (take < need) {
        this.consumed += n
        return -1
      }
      if (!isUtf8(this.tail.subarray(0, this.tailLen))) return tailStart
      this.tailLen = 0
      start = take
    }
    const end = incompleteTailStart(chunk, start, n)
    if (end > start && !isUtf8(chunk.subarray(start, end))) {
      return this.consumed + Math.max(start, firstInvalidUtf8(chunk, start, end))
    }
    for (let k = end; k < n; k++) this.tail[this.tailLen++] = chunk[k]!
    this.consumed += n
    return -1
  }

  /** Absolute offset of a character left incomplete at end of input, or -1. */
  end(): number {
    return this.tailLen > 0 ? this.consumed - this.tailLen : -1
  }
}
