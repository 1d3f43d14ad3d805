import { Effect3Words } from "@retail/domain"
import { Schema, SchemaAST } from "effect"
import { STABLE_FILTER } from "./Checks.ts"

/**
 * Why a document was rejected, field by field, in the words Effect 3's Schema used (its
 * `ArrayFormatter` over a decode with `errors: "all"`): clients read these texts in 400 bodies,
 * and Effect 4 words and groups its issues differently. This walks a capacity schema's own AST
 * against the input and reports what Effect 3's parser reported, in its order:
 *
 * - a struct checks its keys in declaration order; a missing required key is `missing`; a key with
 *   a decoding default (`Network.ts`'s `orDefault`, Effect 3's `optionalWith` default) is
 *   `X | undefined`, and the struct itself is then described as Effect 3 described such a struct;
 * - a union tries the members Effect 3's search tree picked (by literal keys, then the rest, in
 *   order) and reports every member's failure; a value of the wrong kind for every member is one
 *   `Expected <union>` issue;
 * - checks run after the base value passed, in order, and the first that fails is reported with its
 *   message, or as `Expected <its description>` (their annotations are Effect 3's: Checks.ts).
 *
 * Only the nodes the capacity schemas use are known (strings, numbers, booleans, null, undefined,
 * literals, structs, arrays, unions); any other node is accepted as it is. It runs only for a
 * rejected document (Schema decides what is accepted), so it is plain code and may allocate.
 */

export interface ExplainedIssue {
  readonly path: ReadonlyArray<PropertyKey>
  /** A required key is absent (Effect 3's `Missing`). */
  readonly missing: boolean
  readonly message: string
}

type Out = Array<ExplainedIssue>

const PARSE_OPTIONS: SchemaAST.ParseOptions = {}

const hasOwn = (value: object, key: PropertyKey): boolean => Object.prototype.hasOwnProperty.call(value, key)

const isObjectLike = (input: unknown): input is Readonly<Record<PropertyKey, unknown>> =>
  typeof input === "object" && input !== null

type Check = SchemaAST.Check<unknown>

/** A key with a decoding default (Network.ts's `orDefault`): here every key with an encoding is one. */
const hasDefault = Effect3Words.hasDecodingDefault
const hasDefaults = Effect3Words.hasDecodingDefaults

// Effect 3's descriptions of a schema (`String(ast)`), a capacity struct with defaults as the transformation it was.
const { checkExpected, describe, describeBase } = Effect3Words.makeDescriber({ defaultedKeys: true })

// ---------------------------------------------------------------------------------------------
// Effect 3's parser, reporting as its ArrayFormatter did.
// ---------------------------------------------------------------------------------------------

const typeIssue = (path: ReadonlyArray<PropertyKey>, expected: string, input: unknown): ExplainedIssue => ({
  path,
  missing: false,
  message: Effect3Words.expectedActual(expected, input)
})

const fails = (check: Check, input: unknown, ast: SchemaAST.AST): boolean => {
  if (check._tag === "Filter") return check.run(input, ast, PARSE_OPTIONS) !== undefined
  return check.checks.some((inner) => fails(inner, input, ast))
}

/** Effect 3 ran a stable filter (minItems) on the raw array even when some of its items failed. */
const isStable = (check: Check): boolean => check.annotations?.[STABLE_FILTER] === true

const checked = (ast: SchemaAST.AST, input: unknown, path: ReadonlyArray<PropertyKey>, out: Out): boolean => {
  const checks = ast.checks ?? []
  if (!base(ast, input, path, out)) {
    // An array failed by its items only (it is an array): its first check still ran if stable.
    const first = checks[0]
    if (first !== undefined && Array.isArray(input) && isStable(first) && fails(first, input, ast)) {
      out.push(failedCheck(ast, checks, 1, input, path))
    }
    return false
  }
  for (let level = 1; level <= checks.length; level++) {
    const check = checks[level - 1]
    if (check !== undefined && fails(check, input, ast)) {
      out.push(failedCheck(ast, checks, level, input, path))
      return false
    }
  }
  return true
}

const failedCheck = (
  ast: SchemaAST.AST,
  checks: ReadonlyArray<Check>,
  level: number,
  input: unknown,
  path: ReadonlyArray<PropertyKey>
): ExplainedIssue => {
  const check = checks[level - 1]
  const message = Effect3Words.annotationText(check?.annotations, "message")
  if (message !== undefined) return { path, missing: false, message }
  return typeIssue(path, check === undefined ? `{ ${describe(ast, level - 1)} | filter }` : checkExpected(ast, check, level - 1), input)
}

/** Does a leaf node take the input (any other node does here)? */
const isLeafValue = (ast: SchemaAST.AST, input: unknown): boolean => {
  switch (ast._tag) {
    case "String":
      return typeof input === "string"
    case "Number":
      return typeof input === "number"
    case "Boolean":
      return typeof input === "boolean"
    case "Null":
      return input === null
    case "Undefined":
      return input === undefined
    case "Literal":
      return input === ast.literal
    default:
      return true
  }
}

const base = (ast: SchemaAST.AST, input: unknown, path: ReadonlyArray<PropertyKey>, out: Out): boolean => {
  switch (ast._tag) {
    case "Objects":
      return struct(ast, input, path, out)
    case "Arrays":
      return array(ast, input, path, out)
    case "Union":
      return union(ast.types, ast, input, path, out)
    default:
      if (isLeafValue(ast, input)) return true
      out.push(typeIssue(path, describeBase(ast), input))
      return false
  }
}

const struct = (ast: SchemaAST.Objects, input: unknown, path: ReadonlyArray<PropertyKey>, out: Out): boolean => {
  if (!isObjectLike(input) || Array.isArray(input)) {
    // A struct with defaults failed as its encoded side, which Effect 3 titled so (whatever the struct's own annotations).
    out.push(typeIssue(path, hasDefaults(ast) ? "Struct (Encoded side)" : describeBase(ast), input))
    return false
  }
  let ok = true
  for (const ps of ast.propertySignatures) {
    const at = [...path, ps.name]
    const defaulted = hasDefault(ps.type)
    if (!hasOwn(input, ps.name)) {
      if (defaulted || SchemaAST.isOptional(ps.type)) continue
      // Effect 3 decoded the absent value as undefined, and reported a failure as a missing key.
      if (!checked(ps.type, undefined, at, [])) {
        out.push({ path: at, missing: true, message: "is missing" })
        ok = false
      }
      continue
    }
    const value = input[ps.name]
    const valid = defaulted ? union(orUndefined(ps.type), undefined, value, at, out) : checked(ps.type, value, at, out)
    ok = valid && ok
  }
  return ok
}

const array = (ast: SchemaAST.Arrays, input: unknown, path: ReadonlyArray<PropertyKey>, out: Out): boolean => {
  if (!Array.isArray(input)) {
    out.push(typeIssue(path, describeBase(ast), input))
    return false
  }
  const item = ast.rest[0]
  if (ast.elements.length > 0 || ast.rest.length !== 1 || item === undefined) return true
  let ok = true
  for (let index = 0; index < input.length; index++) {
    ok = checked(item, input[index], [...path, index], out) && ok
  }
  return ok
}

// The members of `X | undefined` for a defaulted key, kept per key.
const undefinedAst: SchemaAST.AST = Schema.Undefined.ast
const defaultedMembers = new WeakMap<SchemaAST.AST, ReadonlyArray<SchemaAST.AST>>()
const orUndefined = (ast: SchemaAST.AST): ReadonlyArray<SchemaAST.AST> => {
  let members = defaultedMembers.get(ast)
  if (members === undefined) {
    members = [ast, undefinedAst]
    defaultedMembers.set(ast, members)
  }
  return members
}

/** Effect 3's `getSearchTree`: members told apart by a required literal key, and the others. */
interface SearchTree {
  readonly keys: ReadonlyMap<PropertyKey, {
    readonly buckets: ReadonlyMap<string, ReadonlyArray<SchemaAST.AST>>
    readonly literals: ReadonlyArray<SchemaAST.Literal>
    readonly candidates: ReadonlyArray<SchemaAST.AST>
  }>
  readonly otherwise: ReadonlyArray<SchemaAST.AST>
  readonly candidates: ReadonlyArray<SchemaAST.AST>
}

const literalsOf = (ast: SchemaAST.AST): ReadonlyArray<readonly [PropertyKey, SchemaAST.Literal]> => {
  if (ast._tag !== "Objects") return []
  const out: Array<readonly [PropertyKey, SchemaAST.Literal]> = []
  for (const ps of ast.propertySignatures) {
    if (ps.type._tag === "Literal" && !hasDefault(ps.type) && !SchemaAST.isOptional(ps.type)) out.push([ps.name, ps.type])
  }
  return out
}

const searchTrees = new WeakMap<ReadonlyArray<SchemaAST.AST>, SearchTree>()

const searchTreeOf = (members: ReadonlyArray<SchemaAST.AST>): SearchTree => {
  const cached = searchTrees.get(members)
  if (cached !== undefined) return cached
  const keys = new Map<PropertyKey, {
    buckets: Map<string, Array<SchemaAST.AST>>
    literals: Array<SchemaAST.Literal>
    candidates: Array<SchemaAST.AST>
  }>()
  const otherwise: Array<SchemaAST.AST> = []
  const candidates: Array<SchemaAST.AST> = []
  for (const member of members) {
    const tags = literalsOf(member)
    if (tags.length === 0) {
      otherwise.push(member)
      continue
    }
    candidates.push(member)
    for (let j = 0; j < tags.length; j++) {
      const tag = tags[j]
      if (tag === undefined) continue
      const [key, literal] = tag
      const hash = String(literal.literal)
      let entry = keys.get(key)
      if (entry === undefined) {
        entry = { buckets: new Map(), literals: [], candidates: [] }
        keys.set(key, entry)
      }
      const bucket = entry.buckets.get(hash)
      if (bucket !== undefined) {
        if (j < tags.length - 1) continue
        bucket.push(member)
      } else {
        entry.buckets.set(hash, [member])
      }
      entry.literals.push(literal)
      entry.candidates.push(member)
      if (bucket === undefined) break
    }
  }
  const tree: SearchTree = { keys, otherwise, candidates }
  searchTrees.set(members, tree)
  return tree
}

const safeString = (value: unknown): string | undefined => {
  try {
    return String(value)
  } catch {
    return undefined
  }
}

const union = (
  members: ReadonlyArray<SchemaAST.AST>,
  ast: SchemaAST.Union | undefined,
  input: unknown,
  path: ReadonlyArray<PropertyKey>,
  out: Out
): boolean => {
  const tree = searchTreeOf(members)
  const failures: Array<Out> = []
  let candidates: Array<SchemaAST.AST> = []
  if (tree.keys.size > 0) {
    if (isObjectLike(input)) {
      for (const [key, entry] of tree.keys) {
        if (hasOwn(input, key)) {
          const literal = safeString(input[key])
          const bucket = literal === undefined ? undefined : entry.buckets.get(literal)
          if (bucket !== undefined) candidates = candidates.concat(bucket)
          else failures.push([typeIssue([...path, key], entry.literals.map((literal) => describe(literal)).join(" | "), input[key])])
        } else {
          failures.push([{ path: [...path, key], missing: true, message: "is missing" }])
        }
      }
    } else {
      const expected = tree.candidates.length === members.length
        ? ast === undefined ? members.map((member) => describe(member)).join(" | ") : describe(ast)
        : tree.candidates.map((candidate) => describe(candidate)).join(" | ")
      failures.push([typeIssue(path, expected, input)])
    }
  }
  candidates = candidates.concat(tree.otherwise)
  for (const candidate of candidates) {
    const issues: Out = []
    if (checked(candidate, input, path, issues)) return true
    failures.push(issues)
  }
  if (failures.length === 0) {
    out.push(typeIssue(path, ast === undefined ? members.map((member) => describe(member)).join(" | ") : describe(ast), input))
    return false
  }
  for (const issues of failures) out.push(...issues)
  return false
}

/** The issues Effect 3 reported for `input` against `schema`, in its order; none when it was valid. */
export const explain = (schema: Schema.Top, input: unknown): ReadonlyArray<ExplainedIssue> => {
  const out: Out = []
  checked(schema.ast, input, [], out)
  return out
}
