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

export const issuesOfParseError = (error: ParseResult.ParseError): ReadonlyArray<FieldIssue> =>
  mergeAlternatives(
    ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => ({
      path: formatPath(issue.path),
      message: issue._tag === "Missing" ? "is required" : issue.message
    }))
  )

export const formatIssues = (issues: ReadonlyArray<FieldIssue>): string =>
  issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ")

/** The plain-string body of a 400: every problem, each naming its field path. */
export const formatParseError = (error: ParseResult.ParseError): string => formatIssues(issuesOfParseError(error))
