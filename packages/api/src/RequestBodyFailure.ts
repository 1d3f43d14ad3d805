import type { HttpServerError } from "effect/http"

/** A body read failed because it was larger than the limit set for it (HttpIncomingMessage.MaxBodySize). */
export const isBodyTooLarge = (error: HttpServerError.HttpServerError): boolean =>
  error.reason._tag === "RequestParseError" && error.reason.reason === "BodyTooLarge"

/** How a body that could not be read is described to the client: `Decode error (PUT /v1/network)`, as it always was. */
export const bodyReadFailure = (error: HttpServerError.HttpServerError): string => unreadBody(error.request)

/** The same, for a body read without Effect's reader (by the request it belongs to). */
export const unreadBody = (request: { readonly method: string; readonly url: string }): string => `Decode error (${request.method} ${request.url})`
