import { Effect3Words } from "@retail/domain"
import type { SchemaAST, SchemaIssue } from "effect"

/**
 * The message of a request the contract could not decode (its path, query, headers or JSON
 * payload): 400 with the spec's ErrorMessage, `{"message"}`, naming where the bad value was (the
 * body, a query parameter...), each bad field by its path, and why, one problem after another. The
 * server's DecodeErrorBodies answers the framework's decode failures with it, and the fast lane of
 * the consumptions its own (services/capacity), so both read alike.
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

export const messageOf = (issue: SchemaIssue.Issue): string | undefined =>
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

export type DecodeKind = "Params" | "Headers" | "Query" | "Payload"

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

