import type { ProductCodeEntries } from "@retail/domain"
import { closeSync, fstatSync, openSync, readSync, unlinkSync, writeSync } from "node:fs"
import { type RunLookupHashes, hashBytes, hashCode, makeRunLookupHashes } from "./RunLookupHashes.ts"
import { addToFilter } from "./RunBloomFilters.ts"

/**
 * One run of a spilled productCode index: codes with their first index in a file, grouped in
 * buckets by the top bits of a 32-bit hash (a counting sort, about `CODES_PER_BUCKET` codes a
 * bucket), and in memory each bucket's file offset (its Bloom filter, filled while the run is
 * written, is kept by RunBloomFilters). A lookup, made only when the filter says maybe, is one
 * positioned read of the code's bucket, about 1.6 KB.
 *
 * Record: hash (u32), first index (u32), length (u32; bit 31 set when the code has a character
 * above U+00FF), then the code: one byte a character (Latin-1), or two (UTF-16LE) when wide.
 * Synchronous IO throughout, so the index answers in line with the products; errors are thrown
 * for the owning index to turn into a failure of the load.
 */
export interface ProductCodeRun {
  readonly count: number
  readonly path: string
  /** The first index of `code` when the run holds it (a read of the disk); `hashes` must be `hashCode(code)`'s. */
  readonly find: (code: string, hashes: RunLookupHashes) => number | undefined
  readonly close: () => void
}

export const CODES_PER_BUCKET = 64
const HEADER_BYTES = 12
const WIDE_FLAG = 0x80000000
const CHUNK_BYTES = 64 * 1024

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
 * Writes `entries` (an in-memory index about to be cleared) to a new file at `path` as a run, and
 * adds each code to `filter` (`makeRunFilter(blocks)`). Throws on an IO error, having closed and
 * removed the file.
 */
export const writeProductCodeRun = (
  path: string,
  entries: ProductCodeEntries,
  buffer: ReadBuffer,
  filter: Uint32Array,
  blocks: number
): ProductCodeRun => {
  const { chars, count: narrow, firsts, starts, wide } = entries
  const count = narrow + wide.size
  const wideCodes = Array.from(wide.keys())
  const bucketBits = bucketBitsFor(count)
  const buckets = 2 ** bucketBits
  // A counting sort by bucket: `places` keeps each entry's hash, `placed` the entries bucket by bucket.
  const places = new Uint32Array(count)
  const bucketStarts = new Uint32Array(buckets + 1)
  const hashes = makeRunLookupHashes()
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
    return openedRun(path, fd, count, bucketBits, offsets, buffer)
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
  bucketBits: number,
  offsets: Float64Array,
  buffer: ReadBuffer
): ProductCodeRun => {
  let open = true
  return {
    count,
    path,
    find: (code, hashes) => {
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
