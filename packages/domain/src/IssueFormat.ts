import { Formatter, type SchemaAST, SchemaIssue } from "effect"

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

/*
 * The reasons are the words Effect 3's Schema gave clients, kept byte for byte: a node's `message`
 * when it has one (a union's is its whole answer, however its members failed), `is required` for a
 * missing key, and otherwise Effect 3's default `Expected <type>, actual <value>`, with the type
 * written as Effect 3 wrote its AST (checks by their `title`, untitled ones as `{ <type> | filter }`).
 */

type Annotations = { readonly [key: string]: unknown } | undefined

const stringIn = (annotations: Annotations, key: string): string | undefined => {
  const value = annotations?.[key]
  return typeof value === "string" ? value : undefined
}

const messageOf = (annotations: Annotations): string | undefined => stringIn(annotations, "message")

/** What Effect 3 called a node that names itself: its identifier, else its title, else its description. */
const nameOf = (annotations: Annotations): string | undefined =>
  stringIn(annotations, "identifier") ?? stringIn(annotations, "title") ?? stringIn(annotations, "description")

/** The node without its checks, as Effect 3 wrote it. */
const describeBase = (ast: SchemaAST.AST): string => {
  const named = nameOf(ast.annotations)
  if (named !== undefined) return named
  switch (ast._tag) {
    case "String":
      return "string"
    case "Number":
      return "number"
    case "Boolean":
      return "boolean"
    case "Null":
      return "null"
    case "Undefined":
      return "undefined"
    case "Unknown":
      return "unknown"
    case "Literal":
      return Formatter.format(ast.literal)
    case "Union":
      return ast.types.map((member) => describe(member)).join(" | ")
    case "Objects": {
      const properties = ast.propertySignatures.map((ps) => {
        const readonly = ps.type.context?.isMutable === true ? "" : "readonly "
        const optional = ps.type.context?.isOptional === true ? "?" : ""
        return `${readonly}${String(ps.name)}${optional}: ${describe(ps.type)}`
      })
      return properties.length === 0 ? "{}" : `{ ${properties.join("; ")} }`
    }
    case "Arrays": {
      const rest = ast.rest[0]
      return ast.elements.length === 0 && ast.rest.length === 1 && rest !== undefined ? `ReadonlyArray<${describe(rest)}>` : ast._tag
    }
    default:
      return ast._tag
  }
}

/** The node with its first `count` checks, as Effect 3 wrote a chain of refinements. */
const describe = (ast: SchemaAST.AST, count = ast.checks?.length ?? 0): string => {
  let out = describeBase(ast)
  const checks = ast.checks ?? []
  for (let i = 0; i < count; i++) {
    const annotations = checks[i]?.annotations
    const identifier = stringIn(annotations, "identifier")
    const expected = stringIn(annotations, "title") ?? stringIn(annotations, "description")
    out = identifier ?? (expected === undefined ? `{ ${out} | filter }` : i === 0 ? expected : `${out} & ${expected}`)
  }
  return out
}

const actual = (issue: SchemaIssue.Issue): string => Formatter.format(SchemaIssue.hasInput(issue) ? issue.input : undefined)

const push = (out: Array<FieldProblem>, path: IssuePath, reason: string): void => {
  out.push({ path: formatPath(path), reason })
}

/** A failed check: its message (or the one its predicate answered), else what Effect 3 expected of the refinement it was. */
const checkReason = (node: SchemaAST.AST | undefined, issue: SchemaIssue.Filter): string => {
  const annotations = issue.filter.annotations
  const message = messageOf(annotations) ?? (issue.issue._tag === "InvalidValue" ? messageOf(issue.issue.annotations) : undefined)
  if (message !== undefined) return message
  const index = node?.checks?.indexOf(issue.filter) ?? -1
  const expected = stringIn(annotations, "description") ?? stringIn(annotations, "title") ??
    (node === undefined || index < 0 ? "<filter>" : `{ ${describe(node, index)} | filter }`)
  return `Expected ${expected}, actual ${actual(issue)}`
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
      return push(out, path, messageOf(issue.ast.annotations) ?? `Expected ${describeBase(issue.ast)}, actual ${actual(issue)}`)
    case "AnyOf": {
      const message = messageOf(issue.ast.annotations)
      if (message !== undefined) return push(out, path, message)
      if (issue.issues.length === 0) return push(out, path, `Expected ${describe(issue.ast)}, actual ${actual(issue)}`)
      for (const inner of issue.issues) collect(inner, path, issue.ast, out)
      return
    }
    case "InvalidValue":
      return push(out, path, messageOf(issue.annotations) ?? `Expected ${node === undefined ? "<filter>" : describe(node)}, actual ${actual(issue)}`)
    case "UnexpectedKey":
      return push(out, path, "is unexpected")
    case "Forbidden":
      return push(out, path, messageOf(issue.annotations) ?? "is forbidden")
    case "OneOf":
      return push(out, path, messageOf(issue.ast.annotations) ?? `Expected ${describe(issue.ast)}, actual ${actual(issue)}`)
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
