import type { HttpServerError } from "effect/http"

/** A body read failed because it was larger than the limit set for it (HttpIncomingMessage.MaxBodySize). */
export const isBodyTooLarge = (error: HttpServerError.HttpServerError): boolean =>
  error.reason._tag === "RequestParseError" && error.reason.reason === "BodyTooLarge"

/** How a body that could not be read is described to the client: `Decode error (PUT /v1/network)`, as it always was. */
export const bodyReadFailure = (error: HttpServerError.HttpServerError): string =>
  `Decode error (${error.request.method} ${error.request.url})`
