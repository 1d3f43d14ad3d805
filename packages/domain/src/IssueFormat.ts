import { type SchemaAST, SchemaIssue } from "effect"
import { type Annotations, annotationText, checkExpected, describe, describeBase, expectedActual, formatFieldPath } from "./Effect3Words.ts"

export type IssuePath = ReadonlyArray<PropertyKey>

/** `barcodes[0].productCode`: the path as a reader would write it. */
export const formatPath = (path: IssuePath): string => formatFieldPath(path)

export interface FieldProblem {
  readonly path: string
  readonly reason: string
}

/*
 * The reasons are the words Effect 3's Schema gave clients, kept byte for byte: a node's `message`
 * when it has one (a union's is its whole answer, however its members failed), `is required` for a
 * missing key, and otherwise Effect 3's default `Expected <type>, actual <value>`, with the type
 * written as Effect 3 wrote its AST (checks by their `title`, untitled ones as `{ <type> | filter }`: Effect3Words.ts).
 */

const messageOf = (annotations: Annotations): string | undefined => annotationText(annotations, "message")

/** Effect 3's default message: what the node expected, and the value it was given. */
const defaultMessage = (expected: string, issue: SchemaIssue.Issue): string =>
  expectedActual(expected, SchemaIssue.hasInput(issue) ? issue.input : undefined)

const push = (out: Array<FieldProblem>, path: IssuePath, reason: string): void => {
  out.push({ path: formatPath(path), reason })
}

/** A failed check: its message (or the one its predicate answered), else what Effect 3 expected of the refinement it was. */
const checkReason = (node: SchemaAST.AST | undefined, issue: SchemaIssue.Filter): string => {
  const message = messageOf(issue.filter.annotations) ?? (issue.issue._tag === "InvalidValue" ? messageOf(issue.issue.annotations) : undefined)
  return message ?? defaultMessage(checkExpected(node, issue.filter), issue)
}

const collect = (issue: SchemaIssue.Issue, path: IssuePath, node: SchemaAST.AST | undefined, out: Array<FieldProblem>): void => {
  switch (issue._tag) {
    case "Pointer":
      return collect(issue.issue, [...path, ...issue.path], undefined, out)
    case "Composite":
      for (const inner of issue.issues) collect(inner, path, issue.ast, out)
      return
    case "Filter":
      return push(out, path, checkReason(node, issue))
    case "Encoding":
      return collect(issue.issue, path, issue.ast, out)
    case "MissingKey":
      return push(out, path, "is required")
    case "InvalidType":
      return push(out, path, messageOf(issue.ast.annotations) ?? defaultMessage(describeBase(issue.ast), issue))
    case "AnyOf": {
      const message = messageOf(issue.ast.annotations)
      if (message !== undefined) return push(out, path, message)
      if (issue.issues.length === 0) return push(out, path, defaultMessage(describe(issue.ast), issue))
      for (const inner of issue.issues) collect(inner, path, issue.ast, out)
      return
    }
    case "InvalidValue":
      return push(out, path, messageOf(issue.annotations) ?? defaultMessage(node === undefined ? "<filter>" : describe(node), issue))
    case "UnexpectedKey":
      return push(out, path, "is unexpected")
    case "Forbidden":
      return push(out, path, messageOf(issue.annotations) ?? "is forbidden")
    case "OneOf":
      return push(out, path, messageOf(issue.ast.annotations) ?? defaultMessage(describe(issue.ast), issue))
  }
}

/**
 * One reason per field path, in the order of the schema's fields. Only the first issue of each
 * path is kept; the schema's checks stop at their first failure, as Effect 3's refinements did.
 * Decode with `reportInput: true` so that default messages can show the value.
 */
export const fieldProblems = (issue: SchemaIssue.Issue): ReadonlyArray<FieldProblem> => {
  const all: Array<FieldProblem> = []
  collect(issue, [], undefined, all)
  const seen = new Map<string, string>()
  for (const { path, reason } of all) if (!seen.has(path)) seen.set(path, reason)
  return Array.from(seen, ([path, reason]) => ({ path, reason }))
}

export const formatProblems = (problems: ReadonlyArray<FieldProblem>): string =>
  problems.map(({ path, reason }) => (path === "" ? reason : `${path}: ${reason}`)).join("; ")
