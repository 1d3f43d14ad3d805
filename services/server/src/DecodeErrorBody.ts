import { Effect3Words } from "@retail/domain"
import { type Cause, Effect, type SchemaAST, type SchemaIssue } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiError } from "effect/http-api"

/**
 * A request the contract could not decode (its path, query, headers or JSON payload) is 400 with
 * the spec's ErrorMessage, `{"message"}`: the message names where the bad value was (the body, a
 * query parameter...), each bad field by its path, and why, one problem after another. A body that
 * is not JSON at all says so. The framework would answer an empty 400 itself.
 */

/** One problem of a request, at its path. */
interface DecodeIssue {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

const { annotationText, checkExpected, describe, describeBase, expectedActual } = Effect3Words

const at = (input: unknown, path: ReadonlyArray<PropertyKey>): unknown => {
  let value = input
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined
    value = (value as Record<PropertyKey, unknown>)[key]
  }
  return value
}

const annotationsOf = (issue: SchemaIssue.Issue): { readonly [key: string]: unknown } | undefined => {
  switch (issue._tag) {
    case "Filter":
      return issue.filter.annotations
    case "MissingKey":
    case "InvalidValue":
    case "Forbidden":
      return issue.annotations
    case "InvalidType":
    case "OneOf":
    case "AnyOf":
      return issue.ast.annotations
    default:
      return undefined
  }
}

const messageOf = (issue: SchemaIssue.Issue): string | undefined =>
  annotationText(annotationsOf(issue), issue._tag === "MissingKey" ? "messageMissingKey" : "message")

/** The problems of `issue`, one per bad value with its path; `node` is the schema whose checks a `Filter` issue is one of. */
const walk = (
  issue: SchemaIssue.Issue,
  path: ReadonlyArray<PropertyKey>,
  input: unknown,
  node: SchemaAST.AST | undefined,
  issues: Array<DecodeIssue>
): void => {
  const leaf = (message: string): void => {
    issues.push({ path, message })
  }
  switch (issue._tag) {
    case "Pointer":
      return walk(issue.issue, [...path, ...issue.path], at(input, issue.path), undefined, issues)
    case "Composite":
    case "AnyOf": {
      // One schema's checks failing on one value, or a union of one member: the issue is the child's.
      const children = issue.issues
      const [first] = children
      if (first !== undefined && children.length === 1 && (first._tag !== "Pointer" || issue._tag === "AnyOf")) {
        return walk(first, path, input, issue.ast, issues)
      }
      if (first === undefined) return leaf(expectedActual(describe(issue.ast), input))
      return children.forEach((child) => walk(child, path, input, issue.ast, issues))
    }
    case "Filter": {
      // Its message, or the one its predicate answered; else what Effect 3 expected of the refinement it was.
      const message = messageOf(issue) ?? (issue.issue._tag === "InvalidValue" ? messageOf(issue.issue) : undefined)
      return leaf(message ?? expectedActual(checkExpected(node, issue.filter), input))
    }
    case "Encoding":
      return walk(issue.issue, path, input, issue.ast, issues)
    case "MissingKey":
      return leaf(messageOf(issue) ?? "is missing")
    case "UnexpectedKey":
      return leaf("is unexpected")
    case "Forbidden":
      return leaf("is forbidden")
    case "InvalidType":
      return leaf(messageOf(issue) ?? expectedActual(describeBase(issue.ast), input))
    case "OneOf":
      return leaf(messageOf(issue) ?? expectedActual(describe(issue.ast), input))
    case "InvalidValue":
      return leaf(messageOf(issue) ?? annotationText(issue.annotations, "expected") ?? `Invalid data ${Effect3Words.formatUnknown(input)}`)
  }
}

type DecodeKind = "Params" | "Headers" | "Query" | "Payload"

const WHERE: Readonly<Record<DecodeKind, string>> = {
  Params: "path parameter",
  Headers: "header",
  Query: "query parameter",
  Payload: "body field"
}

/** `nodes[0].code`, or the body itself when the path is empty. */
const fieldPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>(
    (text, key) => (typeof key === "number" ? `${text}[${key}]` : text === "" ? String(key) : `${text}.${String(key)}`),
    ""
  )

/** The decode error body of `issue`, found against `input` (what was decoded from `kind`): `{ message }`. */
export const decodeErrorBody = (issue: SchemaIssue.Issue, input: unknown, kind: DecodeKind = "Payload") => {
  const issues: Array<DecodeIssue> = []
  walk(issue, [], input, undefined, issues)
  const problems = issues.map(({ message, path }) =>
    path.length === 0 ? `${kind === "Payload" ? "the body" : `the ${WHERE[kind]}s`}: ${message}` : `${WHERE[kind]} ${fieldPath(path)}: ${message}`
  )
  return { message: `Invalid request: ${problems.join("; ")}` }
}

export const NOT_JSON_BODY = { message: "Invalid request: the body is not valid JSON" }

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
