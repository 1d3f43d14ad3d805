import { bodyReadFailure, InvalidRequest, isBodyTooLarge, isJsonContentType, PayloadTooLarge, UnsupportedMediaType, unreadBody, unsupportedJsonMessage } from "@retail/api"
import { MAX_JSON_DEPTH, measureJson } from "@retail/ingest"
import { ByteSize, Effect } from "effect"
import { HttpIncomingMessage, type HttpServerRequest } from "effect/http"
import { Readable } from "node:stream"
import type { BufferPool } from "../publish/BufferPool.ts"
import { readBodyInto } from "./PooledBody.ts"

const utf8 = new TextDecoder("utf-8", { fatal: true })

export interface JsonBodyLimits {
  readonly maxBytes: number
  /** Most JSON values (member names included) JSON.parse may allocate, and the variable that sets it. */
  readonly maxValues: number
  readonly maxValuesVariable: string
}

/**
 * Reads a JSON request body's bytes with a size limit, answering each problem with its own status
 * and a message a caller can act on: a Content-Type that is not JSON, a body over the limit (before
 * it is read when its Content-Length says so), an empty body. With `into`, the bytes are read into a
 * buffer of that pool, given back when the scope closes (node:http requests; others as without it).
 */
export const readJsonBodyBytes = (request: HttpServerRequest.HttpServerRequest, limits: Pick<JsonBodyLimits, "maxBytes">, into?: BufferPool) =>
  Effect.gen(function*() {
    if (!isJsonContentType(request.headers["content-type"])) {
      return yield* Effect.fail(
        new UnsupportedMediaType({
          message: unsupportedJsonMessage(request.headers["content-type"])
        })
      )
    }
    const { maxBytes } = limits
    const tooLarge = new PayloadTooLarge({ message: `The request body is larger than the limit of ${maxBytes} bytes` })
    const declared = Number(request.headers["content-length"] ?? "0")
    if (declared > maxBytes) return yield* Effect.fail(tooLarge)
    const source = request.source
    const bytes = into !== undefined && source instanceof Readable
      ? yield* readBodyInto(source, maxBytes, Number.isFinite(declared) && declared > 0 ? declared : 0, into).pipe(
        Effect.mapError((error) =>
          error.reason === "TooLarge" ? tooLarge : new InvalidRequest({ message: `The request body could not be read: ${unreadBody(request)}` })
        )
      )
      : new Uint8Array(
        yield* request.arrayBuffer.pipe(
          Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(maxBytes)),
          Effect.mapError((error) =>
            isBodyTooLarge(error)
              ? tooLarge
              : new InvalidRequest({ message: `The request body could not be read: ${bodyReadFailure(error)}` })
          )
        )
      )
    if (bytes.byteLength === 0) {
      return yield* Effect.fail(new InvalidRequest({ message: "The request body is empty; expected a JSON object" }))
    }
    return bytes
  })

/**
 * Parses a JSON body read by `readJsonBodyBytes`, refusing invalid UTF-8 (instead of replacing it).
 * The values are counted on the bytes before anything is decoded or parsed: JSON.parse's heap
 * grows with values, not bytes.
 */
export const parseJsonBody = (bytes: Uint8Array, limits: Omit<JsonBodyLimits, "maxBytes">) =>
  Effect.gen(function*() {
    const { maxValues } = limits
    const size = measureJson(bytes, maxValues)
    if (size._tag === "TooManyValues") {
      return yield* Effect.fail(
        new PayloadTooLarge({
          message: `The request body has more than ${maxValues} JSON values (${limits.maxValuesVariable}); ` +
            `the value at byte ${size.offset} is one too many`
        })
      )
    }
    if (size._tag === "TooDeep") {
      return yield* Effect.fail(new InvalidRequest({ message: `The request body is nested deeper than ${MAX_JSON_DEPTH} levels` }))
    }
    const text = yield* Effect.try({
      try: () => utf8.decode(bytes),
      catch: () => new InvalidRequest({ message: "The request body is not valid UTF-8" })
    })
    return yield* Effect.try({
      try: (): unknown => JSON.parse(text),
      catch: (error) =>
        new InvalidRequest({ message: `The request body is not valid JSON: ${error instanceof Error ? error.message : String(error)}` })
    })
  })
