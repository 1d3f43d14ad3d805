import { bodyReadFailure, InvalidRequest, isBodyTooLarge, isJsonContentType, PayloadTooLarge, UnsupportedMediaType, unsupportedJsonMessage } from "@retail/api"
import { MAX_JSON_DEPTH, measureJson } from "@retail/ingest"
import { ByteSize, Effect } from "effect"
import { HttpIncomingMessage, type HttpServerRequest } from "effect/http"

const utf8 = new TextDecoder("utf-8", { fatal: true })

export interface JsonBodyLimits {
  readonly maxBytes: number
  /** Most JSON values (member names included) JSON.parse may allocate, and the variable that sets it. */
  readonly maxValues: number
  readonly maxValuesVariable: string
}

/**
 * Reads a JSON request body with a size limit, refusing invalid UTF-8 (instead of replacing it)
 * and answering each problem with its own status and a message a caller can act on. The bytes are
 * measured before anything is decoded or parsed: JSON.parse's heap grows with values, not bytes.
 */
export const readJsonBody = (request: HttpServerRequest.HttpServerRequest, limits: JsonBodyLimits) =>
  Effect.gen(function*() {
    if (!isJsonContentType(request.headers["content-type"])) {
      return yield* Effect.fail(
        new UnsupportedMediaType({
          message: unsupportedJsonMessage(request.headers["content-type"])
        })
      )
    }
    const { maxBytes, maxValues } = limits
    const tooLarge = new PayloadTooLarge({ message: `The request body is larger than the limit of ${maxBytes} bytes` })
    const declared = Number(request.headers["content-length"] ?? "0")
    if (declared > maxBytes) return yield* Effect.fail(tooLarge)
    const bytes = yield* request.arrayBuffer.pipe(
      Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(maxBytes)),
      Effect.mapError((error) =>
        isBodyTooLarge(error)
          ? tooLarge
          : new InvalidRequest({ message: `The request body could not be read: ${bodyReadFailure(error)}` })
      )
    )
    if (bytes.byteLength === 0) {
      return yield* Effect.fail(new InvalidRequest({ message: "The request body is empty; expected a JSON object" }))
    }
    const size = measureJson(new Uint8Array(bytes), maxValues)
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
