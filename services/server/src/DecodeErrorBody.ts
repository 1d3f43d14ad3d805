import { decodeErrorBody, type DecodeKind, messageOf, NOT_JSON_BODY } from "@retail/api"
import { type Cause, Effect, type SchemaIssue } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiError } from "effect/http-api"

/**
 * A request the contract could not decode (its path, query, headers or JSON payload) is 400 with
 * the spec's ErrorMessage, `{"message"}`: the message names where the bad value was (the body, a
 * query parameter...), each bad field by its path, and why, one problem after another. A body that
 * is not JSON at all says so. The framework would answer an empty 400 itself.
 */

const queryOf = (url: string): Record<string, string | Array<string>> => {
  const query: Record<string, string | Array<string>> = {}
  const start = url.indexOf("?")
  if (start === -1) return query
  for (const [key, value] of new URLSearchParams(url.slice(start + 1))) {
    const previous = query[key]
    query[key] = previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value]
  }
  return query
}

const parsedBody = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.map(Effect.orElseSucceed(request.text, () => ""), (text): unknown => {
    try {
      return JSON.parse(text)
    } catch {
      return undefined
    }
  })

const isInvalidJson = (issue: SchemaIssue.Issue) => issue._tag === "InvalidValue" && messageOf(issue) === "Expected a valid JSON body"

const isRequestKind = (kind: HttpApiError.HttpApiSchemaError["kind"]): kind is DecodeKind => kind !== "Body" && kind !== "ResponseHeaders"

/** The request part the contract could not decode, and why. */
const decodeFailure = (cause: Cause.Cause<unknown>): { readonly kind: DecodeKind; readonly issue: SchemaIssue.Issue } | undefined => {
  for (const reason of cause.reasons) {
    const error = reason._tag === "Die" ? reason.defect : reason._tag === "Fail" ? reason.error : undefined
    if (HttpApiError.HttpApiSchemaError.is(error) && isRequestKind(error.kind)) return { kind: error.kind, issue: error.cause.issue }
  }
  return undefined
}

/** Answers the requests the contract could not decode with a 400 ErrorMessage (see above). */
export const DecodeErrorBodies = HttpRouter.middleware(
  <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    Effect.catchCause(app, (cause) => {
      const failure = decodeFailure(cause)
      if (failure === undefined) return Effect.failCause(cause)
      const { issue, kind } = failure
      if (isInvalidJson(issue)) return Effect.succeed(HttpServerResponse.jsonUnsafe(NOT_JSON_BODY, { status: 400 }))
      return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        Effect.map(
          kind === "Payload"
            ? parsedBody(request)
            : Effect.succeed(kind === "Query" ? queryOf(request.url) : kind === "Headers" ? request.headers : undefined),
          (input) => HttpServerResponse.jsonUnsafe(decodeErrorBody(issue, input, kind), { status: 400 })
        ))
    }),
  { global: true }
)
