import { Effect3Words } from "@retail/domain"
import { type Cause, Effect, type SchemaAST, type SchemaIssue } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiError } from "effect/http-api"

/**
 * A request the contract could not decode (its path, query, headers or JSON payload) is 400 with
 * the body it always had: `{"_tag":"HttpApiDecodeError","issues":[{"_tag","path","message"}...],
 * "message"}`, the issues listed one per problem and the message drawn as a tree. The framework
 * answers an empty 400 itself; a body that is not JSON at all still is one.
 */

type IssueTag = "Type" | "Missing" | "Unexpected" | "Forbidden" | "Refinement" | "Transformation"

interface DecodeIssue {
  readonly _tag: IssueTag
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

const { annotationText, checkExpected, describe, describeBase, expectedActual, formatTreePath } = Effect3Words

interface Tree {
  readonly value: string
  readonly forest: ReadonlyArray<Tree>
}

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

/**
 * The issue as a list (one entry per problem, with its path) and as a tree (its message); `node` is
 * the schema whose checks a `Filter` issue is one of.
 */
const walk = (
  issue: SchemaIssue.Issue,
  path: ReadonlyArray<PropertyKey>,
  input: unknown,
  node: SchemaAST.AST | undefined,
  issues: Array<DecodeIssue>
): Tree => {
  const leaf = (_tag: IssueTag, message: string): Tree => {
    issues.push({ _tag, path, message })
    return { value: message, forest: [] }
  }
  switch (issue._tag) {
    case "Pointer": {
      const inner = walk(issue.issue, [...path, ...issue.path], at(input, issue.path), undefined, issues)
      return { value: formatTreePath(issue.path), forest: [inner] }
    }
    case "Composite":
    case "AnyOf": {
      // One schema's checks failing on one value, or a union of one member: the issue is the child's.
      const children = issue.issues
      const [first] = children
      if (first !== undefined && children.length === 1 && (first._tag !== "Pointer" || issue._tag === "AnyOf")) {
        return walk(first, path, input, issue.ast, issues)
      }
      if (first === undefined) return leaf("Type", expectedActual(describe(issue.ast), input))
      return { value: describe(issue.ast), forest: children.map((child) => walk(child, path, input, issue.ast, issues)) }
    }
    case "Filter": {
      // Its message, or the one its predicate answered; else what Effect 3 expected of the refinement it was.
      const message = messageOf(issue) ?? (issue.issue._tag === "InvalidValue" ? messageOf(issue.issue) : undefined)
      return leaf("Refinement", message ?? expectedActual(checkExpected(node, issue.filter), input))
    }
    case "Encoding":
      return walk(issue.issue, path, input, issue.ast, issues)
    case "MissingKey":
      return leaf("Missing", messageOf(issue) ?? "is missing")
    case "UnexpectedKey":
      return leaf("Unexpected", "is unexpected")
    case "Forbidden":
      return leaf("Forbidden", "is forbidden")
    case "InvalidType":
      return leaf("Type", messageOf(issue) ?? expectedActual(describeBase(issue.ast), input))
    case "OneOf":
      return leaf("Type", messageOf(issue) ?? expectedActual(describe(issue.ast), input))
    case "InvalidValue":
      return leaf("Type", messageOf(issue) ?? annotationText(issue.annotations, "expected") ?? `Invalid data ${Effect3Words.formatUnknown(input)}`)
  }
}

const draw = (indentation: string, forest: ReadonlyArray<Tree>): string => {
  let text = ""
  forest.forEach((tree, index) => {
    const isLast = index === forest.length - 1
    text += `${indentation}${isLast ? "└" : "├"}─ ${tree.value}`
    text += draw(`${indentation}${forest.length > 1 && !isLast ? "│  " : "   "}`, tree.forest)
  })
  return text
}

/** The decode error body of `issue`, found against `input` (what was decoded). */
export const decodeErrorBody = (issue: SchemaIssue.Issue, input: unknown) => {
  const issues: Array<DecodeIssue> = []
  const tree = walk(issue, [], input, undefined, issues)
  return { _tag: "HttpApiDecodeError", issues, message: tree.value + draw("\n", tree.forest) }
}

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

const decodeFailure = (cause: Cause.Cause<unknown>): HttpApiError.HttpApiSchemaError | undefined => {
  for (const reason of cause.reasons) {
    const error = reason._tag === "Die" ? reason.defect : reason._tag === "Fail" ? reason.error : undefined
    if (HttpApiError.HttpApiSchemaError.is(error) && error.kind !== "Body" && error.kind !== "ResponseHeaders") return error
  }
  return undefined
}

/** Answers the requests the contract could not decode with the old 400 body (see above). */
export const DecodeErrorBodies = HttpRouter.middleware(
  <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    Effect.catchCause(app, (cause) => {
      const failure = decodeFailure(cause)
      if (failure === undefined || isInvalidJson(failure.cause.issue)) return Effect.failCause(cause)
      return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        Effect.map(
          failure.kind === "Payload"
            ? parsedBody(request)
            : Effect.succeed(failure.kind === "Query" ? queryOf(request.url) : failure.kind === "Headers" ? request.headers : undefined),
          (input) => HttpServerResponse.jsonUnsafe(decodeErrorBody(failure.cause.issue, input), { status: 400 })
        ))
    }),
  { global: true }
)
