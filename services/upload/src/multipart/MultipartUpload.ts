import { InvalidRequest, PayloadTooLarge, UnsupportedMediaType } from "@retail/api"
import { Clock, Duration, Effect, Option, Stream } from "effect"
import { type HttpServerRequest, Multipart } from "effect/http"
import { Readable } from "node:stream"
import { UploadConfig } from "../UploadConfig.ts"
import { ParserWaits } from "./ParserWaits.ts"

export type FileContent = Stream.Stream<Uint8Array, InvalidRequest | PayloadTooLarge>

/** Handles one named file part; it must consume the content before the next part can be read. */
export type FilePartHandler<E, R> = (content: FileContent, fields: ReadonlyMap<string, string>) => Effect.Effect<void, E, R>

export interface MultipartOptions {
  /** The text fields the endpoint takes; any other is refused. Absent: any field is collected. */
  readonly fields?: ReadonlyArray<string>
  /**
   * How long the reader may wait on the parser after the raw body has ended before the body is
   * taken for one without its closing boundary (default 5 s; it only has buffered bytes left by then).
   */
  readonly unterminatedAfter?: Duration.Duration
}

const UNTERMINATED = "The multipart/form-data body ends before its closing boundary"

interface PartLimits {
  readonly fileMaxBytes: number
  readonly maxParts: number
  readonly maxFieldBytes: number
}

const multipartFailure = (error: Multipart.MultipartError, limits: PartLimits) => {
  const reason = error.reason
  switch (reason._tag) {
    case "FileTooLarge":
    case "BodyTooLarge":
      return new PayloadTooLarge({ message: `A file is larger than the limit of ${limits.fileMaxBytes} bytes` })
    case "FieldTooLarge":
      return new PayloadTooLarge({ message: `A text field is larger than the limit of ${limits.maxFieldBytes} bytes (MULTIPART_MAX_FIELD_BYTES)` })
    default:
      return describeCause(reason.cause) === "EndNotReached"
        ? new InvalidRequest({ message: UNTERMINATED })
        : new InvalidRequest({ message: `The multipart/form-data body could not be read (${reason._tag}: ${describeCause(reason.cause)})` })
  }
}

const describeCause = (cause: unknown): string =>
  typeof cause === "object" && cause !== null && "_tag" in cause && typeof cause._tag === "string" ? cause._tag : String(cause)

const limited = (key: string, content: Stream.Stream<Uint8Array, Multipart.MultipartError>, limits: PartLimits): FileContent =>
  Stream.suspend(() => {
    let seen = 0
    return content.pipe(
      Stream.mapError((error) => multipartFailure(error, limits)),
      Stream.mapArrayEffect((chunks) => {
        for (const chunk of chunks) seen += chunk.length
        return seen > limits.fileMaxBytes
          ? Effect.fail(new PayloadTooLarge({ message: `The part ${key} is larger than the limit of ${limits.fileMaxBytes} bytes` }))
          : Effect.succeed(chunks)
      })
    )
  })

const UNTERMINATED_AFTER = Duration.seconds(5)

/**
 * Completes once the raw request body has been received (never on servers that are not node:http).
 * A safety net: effect 4's multipart channel fails a body that stops before its closing boundary
 * (`--b\r\n`, an empty body, a cut file part) with EndNotReached, but the parser it wrapped before
 * neither ended nor failed on one, and the request hung. A reader left waiting on the parser once
 * every byte has come is answered 400 rather than held until the client gives up.
 */
const rawBodyEnded = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<void> => {
  const source = request.source
  if (!(source instanceof Readable)) return Effect.never
  return Effect.callback<void>((resume) => {
    if (source.readableEnded || source.destroyed) return resume(Effect.void)
    const done = () => resume(Effect.void)
    source.once("end", done)
    source.once("close", done)
    return Effect.sync(() => {
      source.off("end", done)
      source.off("close", done)
    })
  })
}

const hasBoundary = (contentType: string) => /;\s*boundary=("[^"]+"|[^;\s]+)/i.test(contentType)

const names = (list: ReadonlyArray<string>) => (list.length === 0 ? "none" : list.join(", "))

const givenTwice = (key: string) => Effect.fail(new InvalidRequest({ message: `The part ${key} is given more than once` }))

/**
 * Reads a multipart/form-data body as a stream of parts: fields are collected, each file part
 * named in `files` is given to its handler (each at most `fileMaxBytes`); a file part of another
 * name, a field not in `options.fields`, a part (file or field) given twice, or a part beyond
 * MULTIPART_MAX_PARTS is refused with 400.
 * Returns the fields and the names of the file parts that were handled.
 */
export const readMultipart = <E, R>(
  request: HttpServerRequest.HttpServerRequest,
  fileMaxBytes: number,
  files: Readonly<Record<string, FilePartHandler<E, R>>>,
  options: MultipartOptions = {}
) =>
  Effect.gen(function*() {
    const config = yield* UploadConfig
    const limits: PartLimits = { fileMaxBytes, maxParts: config.multipartMaxParts, maxFieldBytes: config.multipartMaxFieldBytes }
    const contentType = request.headers["content-type"] ?? ""
    if (!contentType.toLowerCase().startsWith("multipart/form-data")) {
      return yield* Effect.fail(new UnsupportedMediaType({ message: `Content-Type must be multipart/form-data (got ${contentType || "none"})` }))
    }
    if (!hasBoundary(contentType)) {
      return yield* Effect.fail(new InvalidRequest({ message: "Content-Type multipart/form-data must name its boundary (; boundary=...)" }))
    }
    const expectedFiles = Object.keys(files)
    const declared = Number(request.headers["content-length"] ?? "0")
    // Room for the parts' headers and boundaries on top of the files themselves.
    if (declared > expectedFiles.length * fileMaxBytes + 1024 * 1024) {
      return yield* Effect.fail(new PayloadTooLarge({ message: `The request body is larger than ${expectedFiles.length} file(s) of at most ${fileMaxBytes} bytes` }))
    }
    const unexpected = (kind: string, key: string, expected: ReadonlyArray<string>) =>
      Effect.fail(new InvalidRequest({ message: `The ${kind} ${key} is not taken by this endpoint (it takes ${kind}s: ${names(expected)})` }))
    const fields = new Map<string, string>()
    const handled = new Set<string>()
    let parts = 0
    // Not a time since the body ended: the handlers may still be validating and publishing what it
    // held (busy validation threads, a slow Redis) for longer than any bound, and that is no fault of the body.
    const waits = new ParserWaits()
    const unterminated = rawBodyEnded(request).pipe(
      Effect.andThen(Clock.currentTimeMillis),
      Effect.flatMap((endedAt) => waits.stuckFor(options.unterminatedAfter ?? UNTERMINATED_AFTER, endedAt)),
      Effect.andThen(Effect.fail(new InvalidRequest({ message: UNTERMINATED })))
    )
    // Each file part is limited below, so no platform total; a part with a filename is a file even when its type is JSON.
    // Parts are counted below: with node:http, a platform limit ends the part stream without an error
    // (@effect/platform-node-shared fromReadable lets 'end' overwrite the parser's error), dropping the rest.
    const partStream = Stream.provideContext(
      request.multipartStream,
      Multipart.limitsServices({ maxFieldSize: limits.maxFieldBytes, fieldMimeTypes: [] })
    )
    const readParts = waits.track(partStream).pipe(
      // As node:http always answered it: a field over MULTIPART_MAX_FIELD_BYTES ends the part stream,
      // so the caller learns that the parts after it (the file) never came.
      Stream.catchIf((error) => error.reason._tag === "FieldTooLarge", () => Stream.empty),
      Stream.mapError((error) => multipartFailure(error, limits)),
      Stream.runForEach((part): Effect.Effect<void, E | InvalidRequest | PayloadTooLarge, R> => {
        if (++parts > limits.maxParts) {
          return Effect.fail(new InvalidRequest({ message: `The multipart body has more than ${limits.maxParts} parts (MULTIPART_MAX_PARTS)` }))
        }
        if (part._tag === "Field") {
          if (options.fields !== undefined && !options.fields.includes(part.key)) return unexpected("field", part.key, options.fields)
          // Which of two values would count is a guess either way (the company of an internal load above all).
          if (fields.has(part.key)) return givenTwice(part.key)
          fields.set(part.key, part.value)
          return Effect.void
        }
        const handler = Option.fromNullishOr(Object.hasOwn(files, part.key) ? files[part.key] : undefined)
        if (Option.isNone(handler)) return unexpected("file part", part.key, expectedFiles)
        if (handled.has(part.key)) return givenTwice(part.key)
        handled.add(part.key)
        return handler.value(limited(part.key, waits.track(part.content), limits), fields)
      })
    )
    yield* Effect.raceFirst(readParts, unterminated)
    return { fields, handled } as const
  })
