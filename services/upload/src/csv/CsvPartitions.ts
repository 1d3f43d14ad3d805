import { StorageFailed } from "@retail/api"
import { Effect } from "effect"
import { appendFile, mkdtemp, readFile } from "node:fs/promises"
import { join } from "node:path"
import { removeSpoolFolder } from "../spool/SpoolFolder.ts"

/** Raw CSV bytes aimed at one partition; the in-memory join of a partition holds about this much input. */
export const PARTITION_TARGET_BYTES = 2 * 1024 * 1024
export const MAX_PARTITIONS = 1024
/** Bytes of encoded rows kept in memory (all partitions together) before they are appended to their files. */
const FLUSH_BUDGET_BYTES = 8 * 1024 * 1024
/** Largest first size of a partition's buffer (its share of the budget when there are many); it doubles as needed until the next flush. */
const FIRST_BUFFER_BYTES = 64 * 1024

/** How many partitions a CSV upload of `declaredBytes` needs (unknown size: the most). */
export const partitionCountFor = (declaredBytes: number | undefined): number =>
  declaredBytes === undefined || !Number.isFinite(declaredBytes) || declaredBytes <= 0
    ? MAX_PARTITIONS
    : Math.min(MAX_PARTITIONS, Math.max(1, Math.ceil(declaredBytes / PARTITION_TARGET_BYTES)))

/** FNV-1a over the UTF-16 code units: rows with the same productCode always land in the same partition. */
export const partitionOf = (productCode: string, count: number): number => {
  let hash = 0x811c9dc5
  for (let i = 0; i < productCode.length; i++) {
    hash ^= productCode.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return (hash >>> 0) % count
}

/**
 * `partitionOf` the UTF-8 text in bytes[start, end) without decoding it when it is ASCII (a byte then
 * is its UTF-16 code unit, so the hash is the same).
 */
export const partitionOfBytes = (bytes: Uint8Array, start: number, end: number, count: number): number => {
  let hash = 0x811c9dc5
  for (let i = start; i < end; i++) {
    const b = bytes[i]!
    if (b >= 0x80) return partitionOf(Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString("utf8"), count)
    hash ^= b
    hash = Math.imul(hash, 0x01000193)
  }
  return (hash >>> 0) % count
}

const partitionFailed = (operation: string) => (cause: unknown) =>
  new StorageFailed({
    message: `The CSV files could not be ${operation} in temporary storage (${cause instanceof Error ? cause.message : String(cause)}); nothing was published. Retry later.`
  })

const isMissingFile = (cause: unknown): boolean =>
  typeof cause === "object" && cause !== null && "code" in cause && cause.code === "ENOENT"

/**
 * `count` temporary files, one per hash partition of productCode, holding encoded rows of the
 * four CSV files in arrival order. Rows are buffered and appended in rounds; the folder is removed
 * when the scope closes.
 */
export const makeCsvPartitions = (dir: string, count: number) =>
  Effect.gen(function*() {
    const folder = yield* Effect.acquireRelease(
      Effect.tryPromise({ try: () => mkdtemp(join(dir, "retail-csv-")), catch: partitionFailed("partitioned") }),
      (path) => Effect.promise(() => removeSpoolFolder(path))
    )
    const paths = Array.from({ length: count }, (_, i) => join(folder, `partition-${i}.rows`))
    // Rows go straight into one byte buffer per partition (UTF-8, as appended), not into strings that
    // would live on the JavaScript heap until the flush; the buffers are reused from one flush to the next.
    let buffers: Array<Buffer | undefined> = new Array(count)
    const used = new Array<number>(count).fill(0)
    let buffered = 0
    /** A flush is writing the buffers: a row added meanwhile goes to fresh buffers. */
    let writing = false
    const firstSize = Math.min(FIRST_BUFFER_BYTES, Math.ceil(FLUSH_BUDGET_BYTES / count))
    // A buffer is kept for the next round up to twice its partition's share of the budget, so that
    // the kept ones never add up to more than twice the budget, however the rows fell in earlier rounds.
    const keptSize = Math.max(firstSize, Math.ceil((2 * FLUSH_BUDGET_BYTES) / count))

    const room = (partition: number, bytes: number): Buffer => {
      if (writing) {
        buffers = new Array(count)
        used.fill(0)
        writing = false
      }
      const buffer = buffers[partition]
      const need = used[partition]! + bytes
      if (buffer !== undefined && need <= buffer.length) return buffer
      const grown = Buffer.allocUnsafeSlow(Math.max(need, firstSize, 2 * (buffer?.length ?? 0)))
      if (buffer !== undefined) buffer.copy(grown, 0, 0, used[partition])
      buffers[partition] = grown
      return grown
    }

    const flush = Effect.suspend(() => {
      if (buffered === 0) return Effect.void
      const full = buffers.map((buffer, i) => buffer?.subarray(0, used[i]))
      buffered = 0
      writing = true
      return Effect.tryPromise({
        try: () => Promise.all(full.map((rows, i) => rows === undefined || rows.length === 0 ? undefined : appendFile(paths[i]!, rows))),
        catch: partitionFailed("partitioned")
      }).pipe(
        Effect.ensuring(Effect.sync(() => {
          if (!writing) return
          writing = false
          used.fill(0)
          buffers = buffers.map((buffer) => buffer !== undefined && buffer.length <= keptSize ? buffer : undefined)
        })),
        Effect.asVoid
      )
    })

    return {
      count,
      /** Queues one encoded row (ending in a line break) for partition `partition`. */
      add: (partition: number, row: string): void => {
        // A UTF-16 code unit takes at most 3 bytes in UTF-8.
        const buffer = room(partition, 3 * row.length)
        const written = buffer.write(row, used[partition]!)
        used[partition]! += written
        buffered += written
      },
      /**
       * Queues one row as `encodeLineRow` writes it: the file's letter (`kind`, an ASCII code), the line
       * number and U+001D, then bytes[start, end) (UTF-8) and a line break, for partition `partition`.
       * The prefix is written as bytes, not made into a string first (one per row of the upload).
       */
      addLine: (partition: number, kind: number, line: number, bytes: Uint8Array, start: number, end: number): void => {
        let digits = 1
        for (let n = line; n >= 10; n = Math.floor(n / 10)) digits++
        const length = 1 + digits + 1 + (end - start) + 1
        const buffer = room(partition, length)
        let at = used[partition]!
        buffer[at] = kind
        for (let n = line, d = at + digits; d > at; d--, n = Math.floor(n / 10)) buffer[d] = 48 + (n % 10)
        at += digits + 1
        buffer[at++] = 0x1d
        buffer.set(bytes.subarray(start, end), at)
        buffer[at + end - start] = 10
        used[partition]! += length
        buffered += length
      },
      /** Appends the queued rows once they pass the memory budget. */
      flushIfFull: Effect.suspend(() => buffered >= FLUSH_BUDGET_BYTES ? flush : Effect.void),
      flush,
      /** The file of one partition (absent when no row went to it); a join worker reads it itself. */
      path: (partition: number): string => paths[partition]!,
      /** Everything written to one partition (call after the last flush). */
      read: (partition: number) =>
        Effect.tryPromise({
          try: () => readFile(paths[partition]!).catch((cause: unknown) => isMissingFile(cause) ? Buffer.alloc(0) : Promise.reject(cause)),
          catch: partitionFailed("read back")
        })
    } as const
  })

export type CsvPartitions = Effect.Success<ReturnType<typeof makeCsvPartitions>>
