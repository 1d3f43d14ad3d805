import { ParseResult } from "effect"

/** One problem found in an input document, at a JSON path such as `routes[3].target.node`. */
export interface FieldIssue {
  readonly path: string
  readonly message: string
}

export const formatPath = (path: ReadonlyArray<PropertyKey>): string => {
  let text = ""
  for (const key of path) {
    if (typeof key === "number") text += `[${key}]`
    else text += text === "" ? String(key) : `.${String(key)}`
  }
  return text === "" ? "(root)" : text
}

export const issuesOfParseError = (error: ParseResult.ParseError): ReadonlyArray<FieldIssue> =>
  ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => ({
    path: formatPath(issue.path),
    message: issue._tag === "Missing" ? "is required" : issue.message
  }))

export const formatIssues = (issues: ReadonlyArray<FieldIssue>): string =>
  issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ")

/** The plain-string body of a 400: every problem, each naming its field path. */
export const formatParseError = (error: ParseResult.ParseError): string => formatIssues(issuesOfParseError(error))
