import { ParseResult } from "effect"

export type IssuePath = ReadonlyArray<PropertyKey>

/** `barcodes[0].productCode`: the path as a reader would write it. */
export const formatPath = (path: IssuePath): string => {
  let out = ""
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`
    else out += out === "" ? String(key) : `.${String(key)}`
  }
  return out
}

export interface FieldProblem {
  readonly path: string
  readonly reason: string
}

const reasonOf = (issue: ParseResult.ArrayFormatterIssue): string =>
  issue._tag === "Missing" ? "is required" : issue.message

/**
 * One reason per field path. Schema reports a failed union once per alternative, so only
 * the first issue of each path is kept; annotations make that first one the readable one.
 */
export const fieldProblems = (error: ParseResult.ParseError): ReadonlyArray<FieldProblem> => {
  const seen = new Map<string, string>()
  for (const issue of ParseResult.ArrayFormatter.formatErrorSync(error)) {
    const path = formatPath(issue.path)
    if (!seen.has(path)) seen.set(path, reasonOf(issue))
  }
  return Array.from(seen, ([path, reason]) => ({ path, reason }))
}

export const formatProblems = (problems: ReadonlyArray<FieldProblem>): string =>
  problems.map(({ path, reason }) => (path === "" ? reason : `${path}: ${reason}`)).join("; ")
