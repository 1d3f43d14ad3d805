import { type HttpServerRequest, Multipart } from "@effect/platform"
import { InvalidRequest, PayloadTooLarge, UnsupportedMediaType } from "@retail/api"
import { Effect, Option, Stream } from "effect"

export type FileContent = Stream.Stream<Uint8Array, InvalidRequest | PayloadTooLarge>

/** Handles one named file part; it must consume the content before the next part can be read. */
export type FilePartHandler<E, R> = (content: FileContent, fields: ReadonlyMap<string, string>) => Effect.Effect<void, E, R>

const multipartFailure = (error: Multipart.MultipartError, fileMaxBytes: number) =>
  error.reason === "FileTooLarge" || error.reason === "BodyTooLarge"
    ? new PayloadTooLarge({ message: `A file is larger than the limit of ${fileMaxBytes} bytes` })
    : new InvalidRequest({ message: `The multipart/form-data body could not be read (${error.reason})` })

const limited = (key: string, content: Stream.Stream<Uint8Array, Multipart.MultipartError>, maxBytes: number): FileContent =>
  Stream.suspend(() => {
    let seen = 0
    return content.pipe(
      Stream.mapError((error) => multipartFailure(error, maxBytes)),
      Stream.mapChunksEffect((chunks) => {
        for (const chunk of chunks) seen += chunk.length
        return seen > maxBytes
          ? Effect.fail(new PayloadTooLarge({ message: `The part ${key} is larger than the limit of ${maxBytes} bytes` }))
          : Effect.succeed(chunks)
      })
    )
  })

/**
 * Reads a multipart/form-data body as a stream of parts: fields are collected, each file part
 * named in `files` is given to its handler (each at most `fileMaxBytes`), other files are
 * drained. Returns the fields and the names of the file parts that were handled.
 */
export const readMultipart = <E, R>(
  request: HttpServerRequest.HttpServerRequest,
  fileMaxBytes: number,
  files: Readonly<Record<string, FilePartHandler<E, R>>>
) =>
  Effect.gen(function*() {
    const contentType = request.headers["content-type"] ?? ""
    if (!contentType.toLowerCase().startsWith("multipart/form-data")) {
      return yield* Effect.fail(new UnsupportedMediaType({ message: `Content-Type must be multipart/form-data (got ${contentType || "none"})` }))
    }
    const expectedFiles = Object.keys(files).length
    const declared = Number(request.headers["content-length"] ?? "0")
    // Room for the parts' headers and boundaries on top of the files themselves.
    if (declared > expectedFiles * fileMaxBytes + 1024 * 1024) {
      return yield* Effect.fail(new PayloadTooLarge({ message: `The request body is larger than ${expectedFiles} file(s) of at most ${fileMaxBytes} bytes` }))
    }
    const fields = new Map<string, string>()
    const handled = new Set<string>()
    yield* request.multipartStream.pipe(
      Stream.mapError((error) => multipartFailure(error, fileMaxBytes)),
      Stream.runForEach((part): Effect.Effect<void, E | InvalidRequest | PayloadTooLarge, R> => {
        if (part._tag === "Field") {
          fields.set(part.key, part.value)
          return Effect.void
        }
        const handler = Option.fromNullable(Object.hasOwn(files, part.key) ? files[part.key] : undefined)
        if (Option.isNone(handler)) return Stream.runDrain(limited(part.key, part.content, fileMaxBytes))
        if (handled.has(part.key)) return Effect.fail(new InvalidRequest({ message: `The part ${part.key} is given more than once` }))
        handled.add(part.key)
        return handler.value(limited(part.key, part.content, fileMaxBytes), fields)
      }),
      // Each file part is limited above, so no platform total; a part with a filename is a file even when its type is JSON.
      Multipart.withLimits({ maxFileSize: Option.none(), maxTotalSize: Option.none(), maxFieldSize: 64 * 1024, fieldMimeTypes: [] })
    )
    return { fields, handled } as const
  })
