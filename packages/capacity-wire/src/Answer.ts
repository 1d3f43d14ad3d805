import { ERROR_CODES_B, type ErrorCodeB } from "./ErrorStatus.ts"
import type { ErrorBodyB } from "./VariantB.ts"

/**
 * A finished HTTP answer: status, media type and body (plain strings for variant A's errors, as the
 * spec asks), the body as the UTF-8 bytes sent.
 */
export interface Answer {
  readonly status: number
  readonly contentType: "application/json" | "text/plain; charset=utf-8"
  readonly body: Uint8Array
  /** Seconds, sent as Retry-After (429). */
  readonly retryAfter?: number
}

/** The error format of a request: variant B's `{code, message, details}` or variant A's plain string. */
export type ErrorFormat = "A" | "B"

/** Variant A's error: `<Prefix>: <message>` as plain text, with the status of variant B's code for the same error. */
export const plainError = (code: ErrorCodeB, text: string): Answer => ({
  status: ERROR_CODES_B[code],
  contentType: "text/plain; charset=utf-8",
  body: Buffer.from(text)
})

/** Variant B's error body `{code, message, details}`, with the status its code stands for. */
export const errorB = (code: ErrorCodeB, message: string, details: ErrorBodyB["details"] = {}): Answer => ({
  status: ERROR_CODES_B[code],
  contentType: "application/json",
  body: Buffer.from(JSON.stringify({ code, message, details }))
})

/** An answer's body as text (tests, logs). */
export const answerText = (answer: Answer): string => Buffer.from(answer.body.buffer, answer.body.byteOffset, answer.body.byteLength).toString("utf8")

/** The same error in both formats, built once: variant A's text is `<Prefix>: <message>`. */
const both = (code: ErrorCodeB, prefix: string, message: string): Readonly<Record<ErrorFormat, Answer>> => ({
  A: plainError(code, `${prefix}: ${message}`),
  B: errorB(code, message)
})

export const UNAUTHORIZED = both("UNAUTHORIZED", "Unauthorized", "send Authorization: Bearer <api-key>")
export const UNSUPPORTED_MEDIA_TYPE = both("UNSUPPORTED_MEDIA_TYPE", "Unsupported media type", "send Content-Type: application/json")
export const INTERNAL = both("INTERNAL_ERROR", "Internal server error", "the delivery date could not be computed")

export const payloadTooLarge = (format: ErrorFormat, maxBytes: number): Answer =>
  format === "B"
    ? errorB("PAYLOAD_TOO_LARGE", `the body is larger than ${maxBytes} bytes (CAPACITY_MAX_BODY_BYTES)`)
    : plainError("PAYLOAD_TOO_LARGE", `Payload too large: at most ${maxBytes} bytes`)

export const tooManyRequests = (format: ErrorFormat, retryAfter: number): Answer => ({
  ...(format === "B"
    ? errorB("TOO_MANY_REQUESTS", `too many requests for this API key; retry after ${retryAfter} s`)
    : plainError("TOO_MANY_REQUESTS", `Too many requests for this API key; retry after ${retryAfter} s`)),
  retryAfter
})

/** A body that stopped arriving (or trickled): answered before it ended, and its connection closed. */
export const bodyTimeout = (format: ErrorFormat, idleTimeoutMs: number, minBytesPerSecond: number): Answer => {
  const message = `the body arrived slower than ${minBytesPerSecond} bytes/s or not at all over ${idleTimeoutMs} ms ` +
    "(UPLOAD_IDLE_TIMEOUT_MS, UPLOAD_MIN_BYTES_PER_SECOND)"
  return format === "B" ? errorB("REQUEST_TIMEOUT", message) : plainError("REQUEST_TIMEOUT", `Request timeout: ${message}`)
}

/** A body that is not JSON: variant B's format when what could be read of it reads as variant B (VariantSniff.ts), else variant A's. */
export const badJson = (format: ErrorFormat, error: unknown): Answer => {
  const reason = error instanceof Error ? error.message : String(error)
  return format === "B"
    ? errorB("INVALID_REQUEST", `the body is not valid JSON (${reason})`)
    : plainError("INVALID_REQUEST", `Bad request: the body is not valid JSON (${reason})`)
}

/** A JSON body of neither variant (VariantSniff.ts `variantOf`): variant A's plain string, as before variant B existed. */
export const NEITHER_VARIANT = plainError(
  "INVALID_REQUEST",
  "Bad request: the body matches neither variant: variant A has items with origin and deliveryMode; " +
    "variant B has saleChannel and deliveryData"
)
