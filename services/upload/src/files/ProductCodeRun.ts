import type { ProductCodeEntries } from "@retail/domain"
import { closeSync, fstatSync, openSync, readSync, unlinkSync, writeSync } from "node:fs"

/**
 * One run of a spilled productCode index: codes with their first index in a file, grouped in
 * buckets by the top bits of a 32-bit hash (a counting sort, about `CODES_PER_BUCKET` codes a
 * bucket), and in memory only what finds them again: a blocked Bloom filter (`BITS_PER_CODE` bits
 * a code, one 64-byte block each, so a probe is one cache line) and each bucket's file offset. A
 * lookup reads the disk only when the filter says maybe (a code of the run, or about 0.5 % of the
 * others, measured): one positioned read of its bucket, about 1.6 KB.
 *
 * Record: hash (u32), first index (u32), length (u32; bit 31 set when the code has a character
 * above U+00FF), then the code: one byte a character (Latin-1), or two (UTF-16LE) when wide.
 * Synchronous IO throughout, so the index answers in line with the products; errors are thrown
 * for the owning index to turn into a failure of the load.
 */
export interface ProductCodeRun {
  readonly count: number
  readonly path: string
  /** The first index of `code` when the run holds it; `hashes` must be `hashCode(code)`'s. */
  readonly find: (code: string, hashes: CodeHashes) => number | undefined
  readonly close: () => void
}

/** `place` picks a code's bucket in a run, `filter` its Bloom block; `wide` when a character is above U+00FF. */
export interface CodeHashes {
  place: number
  filter: number
  wide: boolean
}

export const BITS_PER_CODE = 12
const PROBES = 7
const BLOCK_WORDS = 16
const BLOCK_BITS = BLOCK_WORDS * 32
export const CODES_PER_BUCKET = 64
const HEADER_BYTES = 12
const WIDE_FLAG = 0x80000000
const CHUNK_BYTES = 64 * 1024

const finish = (h: number): number => {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

/** Two multiplicative hashes over the code's UTF-16 units, finished by murmur3's mixer. */
export const hashCode = (code: string, into: CodeHashes): CodeHashes => {
  let a = 0x811c9dc5
  let b = 0x9747b28c
  let wide = false
  for (let i = 0; i < code.length; i++) {
    const unit = code.charCodeAt(i)
    if (unit > 0xff) wide = true
    a = Math.imul(a ^ unit, 0x01000193)
    b = Math.imul(b ^ unit, 0x5bd1e995)
  }
  into.place = finish(a ^ code.length)
  into.filter = finish(b)
  into.wide = wide
  return into
}

/** `hashCode` of the Latin-1 code chars[start, end). */
const hashBytes = (chars: Uint8Array, start: number, end: number, into: CodeHashes): CodeHashes => {
  let a = 0x811c9dc5
  let b = 0x9747b28c
  for (let i = start; i < end; i++) {
    const unit = chars[i]!
    a = Math.imul(a ^ unit, 0x01000193)
    b = Math.imul(b ^ unit, 0x5bd1e995)
  }
  into.place = finish(a ^ (end - start))
  into.filter = finish(b)
  into.wide = false
  return into
}

const blockOf = (filter: number, blocks: number): number => Math.floor((filter * blocks) / 0x100000000) * BLOCK_WORDS

const addToFilter = (words: Uint32Array, blocks: number, hashes: CodeHashes): void => {
  const base = blockOf(hashes.filter, blocks)
  const step = (hashes.place >>> 9) | 1
  for (let i = 0, bit = hashes.place; i < PROBES; i++, bit += step) {
    const at = bit & (BLOCK_BITS - 1)
    words[base + (at >>> 5)]! |= 1 << (at & 31)
  }
}

const mayHold = (words: Uint32Array, blocks: number, hashes: CodeHashes): boolean => {
  const base = blockOf(hashes.filter, blocks)
  const step = (hashes.place >>> 9) | 1
  for (let i = 0, bit = hashes.place; i < PROBES; i++, bit += step) {
    const at = bit & (BLOCK_BITS - 1)
    if ((words[base + (at >>> 5)]! & (1 << (at & 31))) === 0) return false
  }
  return true
}

/** Little-endian, by hand: Buffer's writeUInt32LE checks its arguments on every call. */
const putUint32 = (bytes: Uint8Array, at: number, value: number): void => {
  bytes[at] = value & 0xff
  bytes[at + 1] = (value >>> 8) & 0xff
  bytes[at + 2] = (value >>> 16) & 0xff
  bytes[at + 3] = value >>> 24
}

const writeFully = (fd: number, bytes: Uint8Array, length: number, position: number): void => {
  for (let done = 0; done < length;) {
    const written = writeSync(fd, bytes, done, length - done, position + done)
    if (written <= 0) throw new Error(`only ${done} of ${length} bytes were written`)
    done += written
  }
}

const readFully = (fd: number, bytes: Uint8Array, length: number, position: number): void => {
  for (let done = 0; done < length;) {
    const read = readSync(fd, bytes, done, length - done, position + done)
    if (read <= 0) throw new Error(`the file ${length - done} bytes short at byte ${position + done}`)
    done += read
  }
}

/** One read buffer shared by the runs of an index (their lookups never overlap). */
export interface ReadBuffer {
  bytes: Buffer
}

const sameCode = (bytes: Buffer, at: number, units: number, wide: boolean, code: string): boolean => {
  if (wide) {
    for (let i = 0; i < units; i++) if (bytes.readUInt16LE(at + 2 * i) !== code.charCodeAt(i)) return false
  } else {
    for (let i = 0; i < units; i++) if (bytes[at + i] !== code.charCodeAt(i)) return false
  }
  return true
}

/** Buckets of about `CODES_PER_BUCKET` codes: a power of two, picked by the top bits of the `place` hash. */
const bucketBitsFor = (count: number): number => Math.max(0, Math.ceil(Math.log2(count / CODES_PER_BUCKET)))

const bucketOf = (place: number, bits: number): number => bits === 0 ? 0 : place >>> (32 - bits)

/**
 * Writes `entries` (an in-memory index about to be cleared) to a new file at `path` as a run.
 * Throws on an IO error, having closed and removed the file.
 */
export const writeProductCodeRun = (path: string, entries: ProductCodeEntries, buffer: ReadBuffer): ProductCodeRun => {
  const { chars, count: narrow, firsts, starts, wide } = entries
  const count = narrow + wide.size
  const wideCodes = Array.from(wide.keys())
  const blocks = Math.max(1, Math.ceil((count * BITS_PER_CODE) / BLOCK_BITS))
  const filter = new Uint32Array(blocks * BLOCK_WORDS)
  const bucketBits = bucketBitsFor(count)
  const buckets = 2 ** bucketBits
  // A counting sort by bucket: `places` keeps each entry's hash, `placed` the entries bucket by bucket.
  const places = new Uint32Array(count)
  const bucketStarts = new Uint32Array(buckets + 1)
  const hashes: CodeHashes = { place: 0, filter: 0, wide: false }
  for (let e = 0; e < count; e++) {
    if (e < narrow) hashBytes(chars, starts[e]!, starts[e + 1]!, hashes)
    else hashCode(wideCodes[e - narrow]!, hashes)
    addToFilter(filter, blocks, hashes)
    places[e] = hashes.place
    bucketStarts[bucketOf(hashes.place, bucketBits) + 1]!++
  }
  for (let b = 0; b < buckets; b++) bucketStarts[b + 1]! += bucketStarts[b]!
  const next = bucketStarts.slice(0, buckets)
  const placed = new Uint32Array(count)
  for (let e = 0; e < count; e++) placed[next[bucketOf(places[e]!, bucketBits)]!++] = e

  const offsets = new Float64Array(buckets + 1)
  const fd = openSync(path, "wx+")
  try {
    let chunk = new Uint8Array(CHUNK_BYTES)
    let used = 0
    let written = 0
    let bucket = 0
    for (let r = 0; r < count; r++) {
      const e = placed[r]!
      const code = e < narrow ? undefined : wideCodes[e - narrow]!
      const units = code === undefined ? starts[e + 1]! - starts[e]! : code.length
      const size = HEADER_BYTES + (code === undefined ? units : 2 * units)
      if (used + size > chunk.length) {
        writeFully(fd, chunk, used, written)
        written += used
        used = 0
        if (size > chunk.length) chunk = new Uint8Array(size)
      }
      while (bucket < buckets && bucketStarts[bucket]! <= r) offsets[bucket++] = written + used
      putUint32(chunk, used, places[e]!)
      putUint32(chunk, used + 4, code === undefined ? firsts[e]! : wide.get(code)!)
      putUint32(chunk, used + 8, code === undefined ? units : units + WIDE_FLAG)
      const at = used + HEADER_BYTES
      if (code === undefined) {
        const start = starts[e]!
        for (let i = 0; i < units; i++) chunk[at + i] = chars[start + i]!
      } else {
        for (let i = 0; i < units; i++) {
          const unit = code.charCodeAt(i)
          chunk[at + 2 * i] = unit & 0xff
          chunk[at + 2 * i + 1] = unit >>> 8
        }
      }
      used += size
    }
    writeFully(fd, chunk, used, written)
    written += used
    while (bucket <= buckets) offsets[bucket++] = written
    if (fstatSync(fd).size !== written) throw new Error(`the run file holds ${fstatSync(fd).size} bytes, not ${written}`)
    return openedRun(path, fd, count, filter, blocks, bucketBits, offsets, buffer)
  } catch (cause) {
    closeQuietly(fd, path)
    throw cause
  }
}

const closeQuietly = (fd: number, path: string): void => {
  try {
    closeSync(fd)
  } catch {
    // Already closed or never usable: the file goes anyway.
  }
  try {
    unlinkSync(path)
  } catch {
    // Gone already, or removed with the spool's folder.
  }
}

const openedRun = (
  path: string,
  fd: number,
  count: number,
  filter: Uint32Array,
  blocks: number,
  bucketBits: number,
  offsets: Float64Array,
  buffer: ReadBuffer
): ProductCodeRun => {
  let open = true
  return {
    count,
    path,
    find: (code, hashes) => {
      if (!mayHold(filter, blocks, hashes)) return undefined
      const { place } = hashes
      const bucket = bucketOf(place, bucketBits)
      const start = offsets[bucket]!
      const span = offsets[bucket + 1]! - start
      if (span === 0) return undefined
      if (buffer.bytes.length < span) buffer.bytes = Buffer.allocUnsafe(Math.max(span, 2 * buffer.bytes.length))
      const bytes = buffer.bytes
      readFully(fd, bytes, span, start)
      for (let at = 0; at < span;) {
        const packed = bytes.readUInt32LE(at + 8)
        const wide = packed >= WIDE_FLAG
        const units = wide ? packed - WIDE_FLAG : packed
        if (bytes.readUInt32LE(at) === place && wide === hashes.wide && units === code.length && sameCode(bytes, at + HEADER_BYTES, units, wide, code)) {
          return bytes.readUInt32LE(at + 4)
        }
        at += HEADER_BYTES + (wide ? 2 * units : units)
      }
      return undefined
    },
    close: () => {
      if (!open) return
      open = false
      closeQuietly(fd, path)
    }
  }
}
