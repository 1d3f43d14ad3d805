import { StorageFailed } from "@retail/api"
import { Cause, Effect, Stream } from "effect"
import { type FileHandle, mkdtemp, open } from "node:fs/promises"
import { join } from "node:path"
import { removeSpoolFolder } from "./SpoolFolder.ts"

/**
 * One spooled record: a batch of accepted products (the bytes of a JSON array of products, as the
 * queue entry will carry them, or with BATCH_ENTRY_FORMAT=columns the body of an encoded batch:
 * EncodedBatch.ts' column count and columns) or a page of errors (a JSON array of LoadError).
 */
export type SpoolRecord =
  | { readonly _tag: "Batch"; readonly count: number; readonly productsJson: Uint8Array }
  | { readonly _tag: "Columns"; readonly count: number; readonly body: Uint8Array }
  | { readonly _tag: "Errors"; readonly json: string }

const spoolFailed = (operation: string) => (cause: unknown) =>
  new StorageFailed({
    message: `The upload could not be ${operation} in temporary storage (${cause instanceof Error ? cause.message : String(cause)}); nothing was published. Retry later.`
  })

/**
 * A temporary file holding what a file load will publish, written while the upload is read and
 * replayed only once the upload proved well-formed. Removed when the scope closes.
 *
 * Records are length-prefixed (`B<count> <bytes>\n`, `C<count> <bytes>\n` or `E<bytes>\n`, then the bytes), so a batch
 * goes to disk and back as bytes, never as a string: products keep whatever formatting they had
 * in the upload, newlines included.
 */
export const makeLoadSpool = (dir: string) =>
  Effect.gen(function*() {
    const folder = yield* Effect.acquireRelease(
      Effect.tryPromise({ try: () => mkdtemp(join(dir, "retail-load-")), catch: spoolFailed("spooled") }),
      (path) => Effect.promise(() => removeSpoolFolder(path))
    )
    const path = join(folder, "load.spool")
    const handle = yield* Effect.acquireRelease(
      Effect.tryPromise({ try: () => open(path, "w"), catch: spoolFailed("spooled") }),
      (file) => Effect.promise(() => file.close().catch(() => undefined))
    )

    const append = (header: string, body: Uint8Array) =>
      Effect.tryPromise({
        try: async () => {
          const head = Buffer.from(header, "latin1")
          const { bytesWritten } = await handle.writev([head, body])
          // A short write (a full disk) must not leave a record the replay would misread.
          if (bytesWritten !== head.length + body.length) throw new Error(`only ${bytesWritten} of ${head.length + body.length} bytes were written`)
        },
        catch: spoolFailed("spooled")
      })

    return {
      /** The load's own folder, removed with everything in it when the scope closes. */
      folder,
      /** `count` products, given as the bytes of their JSON array. Do not modify `productsJson` until this completes. */
      writeBatch: (count: number, productsJson: Uint8Array) => append(`B${count} ${productsJson.length}\n`, productsJson),
      /** `count` products, given as the body of an encoded batch. Do not modify `body` until this completes. */
      writeColumns: (count: number, body: Uint8Array) => append(`C${count} ${body.length}\n`, body),
      writeErrors: (errorsJson: string) => {
        const body = Buffer.from(errorsJson, "utf8")
        return append(`E${body.length}\n`, body)
      },
      /**
       * Every record in the order written; call after the last write. Batches are read into `allocate(length)`.
       * The file is not synced first: it is read back by this process, from the page cache, and removed
       * after; forcing it to disk only made the load wait for the disk (65-85 ms for 183 MB here), and a
       * file removed before the kernel writes it back costs the disk nothing.
       */
      records: (allocate: (length: number) => Uint8Array = Buffer.allocUnsafe) => readRecords(path, allocate)
    } as const
  })

export type LoadSpool = Effect.Success<ReturnType<typeof makeLoadSpool>>

/** Longest header: `B<count> <bytes>\n` with two safe integers. */
const HEADER_MAX = 40
const HEADER = /^(([BC])(\d+) (\d+)|E(\d+))$/

const corrupt = (detail: string) => spoolFailed("read back")(new Error(`the spool file is corrupt (${detail})`))

/** Reads up to `length` bytes at `position` (fewer only at the end of the file); the count read. */
const readFully = (file: FileHandle, buffer: Uint8Array, length: number, position: number) =>
  Effect.tryPromise({
    try: async () => {
      let done = 0
      while (done < length) {
        const { bytesRead } = await file.read(buffer, done, length - done, position + done)
        if (bytesRead === 0) break
        done += bytesRead
      }
      return done
    },
    catch: spoolFailed("read back")
  })

/** The spool's records, each read with two positioned reads (its header, then its bytes); the file is closed when the stream ends. */
const readRecords = (path: string, allocate: (length: number) => Uint8Array): Stream.Stream<SpoolRecord, StorageFailed> =>
  Stream.unwrap(Effect.gen(function*() {
    const file = yield* Effect.acquireRelease(
      Effect.tryPromise({ try: () => open(path, "r"), catch: spoolFailed("read back") }),
      (handle) => Effect.promise(() => handle.close().catch(() => undefined))
    )
    const head = Buffer.alloc(HEADER_MAX)
    let position = 0
    // One record a pull; the end of the file ends the stream (Cause.Done).
    const next: Effect.Effect<SpoolRecord, StorageFailed | Cause.Done> = Effect.gen(function*() {
      const headRead = yield* readFully(file, head, HEADER_MAX, position)
      if (headRead === 0) return yield* Cause.done()
      const newline = head.subarray(0, headRead).indexOf(0x0a)
      const match = newline === -1 ? null : HEADER.exec(head.toString("latin1", 0, newline))
      if (match === null) return yield* Effect.fail(corrupt(`no record header at byte ${position}`))
      const length = Number(match[4] ?? match[5])
      const kind = match[2]
      const isBatch = kind !== undefined
      const body = isBatch ? allocate(length) : Buffer.allocUnsafe(length)
      const bodyRead = length === 0 ? 0 : yield* readFully(file, body, length, position + newline + 1)
      if (bodyRead !== length) return yield* Effect.fail(corrupt(`a record at byte ${position} is cut short`))
      position += newline + 1 + length
      const record: SpoolRecord = kind === "B"
        ? { _tag: "Batch", count: Number(match[3]), productsJson: body }
        : kind === "C"
        ? { _tag: "Columns", count: Number(match[3]), body }
        : { _tag: "Errors", json: Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8") }
      return record
    })
    return Stream.fromEffectRepeat(next)
  }))
