import { StorageFailed } from "@retail/api"
import { Chunk, Effect, Option, Stream } from "effect"
import { mkdtemp, open, rm } from "node:fs/promises"
import { join } from "node:path"
import { StringDecoder } from "node:string_decoder"

/** One spooled line: a batch of accepted products (a JSON array of products) or a page of errors (a JSON array of LoadError). */
export type SpoolLine =
  | { readonly _tag: "Batch"; readonly count: number; readonly productsJson: string }
  | { readonly _tag: "Errors"; readonly json: string }

const spoolFailed = (operation: string) => (cause: unknown) =>
  new StorageFailed({
    message: `The upload could not be ${operation} in temporary storage (${cause instanceof Error ? cause.message : String(cause)}); nothing was published. Retry later.`
  })

/**
 * A temporary file holding what a file load will publish, written while the upload is read and
 * replayed only once the upload proved well-formed. Removed when the scope closes.
 */
export const makeLoadSpool = (dir: string) =>
  Effect.gen(function*() {
    const folder = yield* Effect.acquireRelease(
      Effect.tryPromise({ try: () => mkdtemp(join(dir, "retail-load-")), catch: spoolFailed("spooled") }),
      (path) => Effect.promise(() => rm(path, { recursive: true, force: true }))
    )
    const path = join(folder, "load.spool")
    const handle = yield* Effect.acquireRelease(
      Effect.tryPromise({ try: () => open(path, "w"), catch: spoolFailed("spooled") }),
      (file) => Effect.promise(() => file.close().catch(() => undefined))
    )

    const append = (line: string) =>
      Effect.tryPromise({ try: () => handle.write(line), catch: spoolFailed("spooled") }).pipe(Effect.asVoid)

    return {
      /** `count` products, given as their JSON texts. */
      writeBatch: (products: ReadonlyArray<string>) => append(`B${products.length}:[${products.join(",")}]\n`),
      writeErrors: (errorsJson: string) => append(`E${errorsJson}\n`),
      /** Every line in the order written; call after the last write. */
      lines: Stream.unwrap(Effect.as(
        Effect.tryPromise({ try: () => handle.sync(), catch: spoolFailed("spooled") }),
        readLines(path)
      ))
    } as const
  })

export type LoadSpool = Effect.Effect.Success<ReturnType<typeof makeLoadSpool>>

const parseLine = (line: string): SpoolLine => {
  if (line.startsWith("E")) return { _tag: "Errors", json: line.slice(1) }
  const colon = line.indexOf(":")
  return { _tag: "Batch", count: Number(line.slice(1, colon)), productsJson: line.slice(colon + 1) }
}

const READ_SIZE = 1024 * 1024

/** The spool's lines, read a megabyte at a time (a line is at most one batch). */
const readLines = (path: string) =>
  Stream.unwrapScoped(Effect.gen(function*() {
    const file = yield* Effect.acquireRelease(
      Effect.tryPromise({ try: () => open(path, "r"), catch: spoolFailed("read back") }),
      (handle) => Effect.promise(() => handle.close().catch(() => undefined))
    )
    const decoder = new StringDecoder("utf8")
    const buffer = Buffer.alloc(READ_SIZE)
    let rest = ""
    let ended = false
    const next = Effect.gen(function*() {
      if (ended) return yield* Effect.fail(Option.none())
      const { bytesRead } = yield* Effect.tryPromise({ try: () => file.read(buffer, 0, READ_SIZE, null), catch: spoolFailed("read back") }).pipe(
        Effect.mapError(Option.some)
      )
      if (bytesRead === 0) {
        ended = true
        const last = rest + decoder.end()
        return Chunk.fromIterable(last === "" ? [] : [parseLine(last)])
      }
      const lines = (rest + decoder.write(buffer.subarray(0, bytesRead))).split("\n")
      rest = lines.pop() ?? ""
      return Chunk.fromIterable(lines.map(parseLine))
    })
    return Stream.repeatEffectChunkOption(next)
  }))
