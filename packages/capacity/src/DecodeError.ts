import { Effect3Words } from "@retail/domain"
import { type Schema, SchemaIssue } from "effect"
import { explain } from "./SchemaExplain.ts"

/** One problem found in an input document, at a JSON path such as `routes[3].target.node`. */
export interface FieldIssue {
  readonly path: string
  readonly message: string
}

/** A field path as the 400 texts write it: `routes[3].target.node`, `(root)` for the document itself. */
export const formatPath = (path: ReadonlyArray<PropertyKey>): string => Effect3Words.formatFieldPath(path) || "(root)"

const EXPECTED = /^Expected (.+), actual (.+)$/

/** A union reports one issue per member at the same path; say it once: `Expected "A" | "B", actual "X"`. */
const mergeAlternatives = (issues: ReadonlyArray<FieldIssue>): ReadonlyArray<FieldIssue> => {
  const merged: Array<FieldIssue> = []
  for (const issue of issues) {
    const previous = merged[merged.length - 1]
    if (previous === undefined || previous.path !== issue.path) {
      merged.push(issue)
      continue
    }
    const now = EXPECTED.exec(issue.message)
    const before = EXPECTED.exec(previous.message)
    const message = now !== null && before !== null && now[2] === before[2]
      ? `Expected ${before[1]} | ${now[1]}, actual ${now[2]}`
      : `${previous.message}, or ${issue.message}`
    merged[merged.length - 1] = { path: issue.path, message }
  }
  return merged
}

/** Schema rejected what Effect 3 accepted (never seen): say what Effect 4 says rather than nothing. */
const issuesOfSchemaError = (error: Schema.SchemaError): ReadonlyArray<FieldIssue> =>
  SchemaIssue.makeFormatterStandardSchemaV1()(error.issue).issues.map((issue) => ({
    path: formatPath((issue.path ?? []).map((segment) => (typeof segment === "object" ? segment.key : segment))),
    message: issue.message
  }))

/**
 * The problems of a document `schema` rejected with `error`, each at its field path, in the words
 * the service has always used (Effect 3's, see SchemaExplain.ts): clients and tests read them.
 */
export const issuesOfRejected = (schema: Schema.Top, input: unknown, error: Schema.SchemaError): ReadonlyArray<FieldIssue> => {
  const explained = explain(schema, input)
  if (explained.length === 0) return issuesOfSchemaError(error)
  return mergeAlternatives(explained.map((issue) => ({
    path: formatPath(issue.path),
    message: issue.missing ? "is required" : issue.message
  })))
}

export const formatIssues = (issues: ReadonlyArray<FieldIssue>): string =>
  issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ")

/** The plain-string body of a 400: every problem, each naming its field path. */
export const formatRejected = (schema: Schema.Top, input: unknown, error: Schema.SchemaError): string =>
  formatIssues(issuesOfRejected(schema, input, error))
