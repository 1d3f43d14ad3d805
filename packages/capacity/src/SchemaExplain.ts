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

// ---------------------------------------------------------------------------------------------
// Effect 3's `formatUnknown` (Inspectable.ts), as the parser called it: no indentation.
// ---------------------------------------------------------------------------------------------

const formatKey = (key: PropertyKey): string => (typeof key === "string" ? JSON.stringify(key) : String(key))

const safeToString = (value: { toString(): unknown }): string => {
  try {
    const text = value.toString()
    return typeof text === "string" ? text : String(text)
  } catch {
    return "[toString threw]"
  }
}

/** `Foo` of a `new Foo()`; also read from a plain object's own `constructor` key, as Effect 3 did. */
const constructorName = (value: object): string | undefined => {
  const ctor: unknown = Reflect.get(value, "constructor")
  if (!ctor || ctor === Object) return undefined
  const name: unknown = Reflect.get(Object(ctor), "name")
  return name ? String(name) : undefined
}

const formatValue = (value: unknown, seen: WeakSet<object>): string => {
  if (Array.isArray(value)) {
    if (seen.has(value)) return "[Circular]"
    seen.add(value)
    return `[${value.map((item) => formatValue(item, seen)).join(",")}]`
  }
  if (value instanceof Date) {
    try {
      return value.toISOString()
    } catch {
      return "Invalid Date"
    }
  }
  if (isObjectLike(value)) {
    const toString: unknown = Reflect.get(value, "toString")
    if (typeof toString === "function" && toString !== Object.prototype.toString && toString !== Array.prototype.toString) {
      const text = safeToString(value)
      const cause: unknown = value instanceof Error ? value.cause : undefined
      return cause ? `${text} (cause: ${formatValue(cause, seen)})` : text
    }
  }
  if (typeof value === "string") return JSON.stringify(value)
  if (typeof value === "number" || value === null || value === undefined || typeof value === "boolean" || typeof value === "symbol") {
    return String(value)
  }
  if (typeof value === "bigint") return `${String(value)}n`
  if (value instanceof Set || value instanceof Map) {
    if (seen.has(value)) return "[Circular]"
    seen.add(value)
    return `${value.constructor.name}(${formatValue(Array.from(value), seen)})`
  }
  if (isObjectLike(value)) {
    if (seen.has(value)) return "[Circular]"
    seen.add(value)
    const body = `{${Reflect.ownKeys(value).map((key) => `${formatKey(key)}:${formatValue(value[key], seen)}`).join(",")}}`
    const name = constructorName(value)
    return name === undefined ? body : `${name}(${body})`
  }
  return String(value)
}

const formatUnknown = (input: unknown): string => formatValue(input, new WeakSet())

// ---------------------------------------------------------------------------------------------
// Effect 3's descriptions of a schema (`String(ast)`).
// ---------------------------------------------------------------------------------------------

type Check = SchemaAST.Check<unknown>

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

const annotationsOf = (ast: SchemaAST.AST) => ast.annotations ?? {}

/** Effect 3's `getExpected` of a node: identifier, title, description. */
const expectedOf = (annotations: Schema.Annotations.Annotations): string | undefined =>
  text(annotations["identifier"]) ?? text(annotations["title"]) ?? text(annotations["description"])

/** A key whose value may be absent or undefined and is then decoded as a default (it has an encoding). */
const hasDefault = (ast: SchemaAST.AST): boolean => ast.encoding !== undefined

/** A struct with a defaulted key was, in Effect 3, a transformation between two structs. */
const hasDefaults = (ast: SchemaAST.Objects): boolean => ast.propertySignatures.some((ps) => hasDefault(ps.type))

/** A key of a struct without defaults. */
const describeProperty = (ps: SchemaAST.PropertySignature): string =>
  `readonly ${String(ps.name)}${SchemaAST.isOptional(ps.type) ? "?" : ""}: ${describe(ps.type)}`

/** The node without its checks. */
const describeBase = (ast: SchemaAST.AST): string => {
  const expected = expectedOf(annotationsOf(ast))
  switch (ast._tag) {
    case "Objects":
      if (hasDefaults(ast)) return expected ?? "(Struct (Encoded side) <-> Struct (Type side))"
      if (expected !== undefined) return expected
      return ast.propertySignatures.length === 0 ? "{}" : `{ ${ast.propertySignatures.map(describeProperty).join("; ")} }`
    case "Arrays": {
      const item = ast.rest[0]
      return expected ?? (ast.elements.length === 0 && ast.rest.length === 1 && item !== undefined ? `ReadonlyArray<${describe(item)}>` : ast._tag)
    }
    case "Union":
      return expected ?? ast.types.map(describe).join(" | ")
    case "Literal":
      return expected ?? formatUnknown(ast.literal)
    case "String":
      return expected ?? "string"
    case "Number":
      return expected ?? "number"
    case "Boolean":
      return expected ?? "boolean"
    case "Null":
      return expected ?? "null"
    case "Undefined":
      return expected ?? "undefined"
    default:
      return expected ?? ast._tag
  }
}

/** Effect 3's `String(refinement)` of the first `level` checks over the node. */
const describeChecked = (ast: SchemaAST.AST, checks: ReadonlyArray<Check>, level: number): string => {
  const check = checks[level - 1]
  if (check === undefined) return describeBase(ast)
  const annotations = check.annotations ?? {}
  const identifier = text(annotations["identifier"])
  if (identifier !== undefined) return identifier
  const expected = text(annotations["title"]) ?? text(annotations["description"])
  if (expected === undefined) return `{ ${describeChecked(ast, checks, level - 1)} | filter }`
  return level > 1 ? `${describeChecked(ast, checks, level - 1)} & ${expected}` : expected
}

const describe = (ast: SchemaAST.AST): string => {
  const checks = ast.checks ?? []
  return describeChecked(ast, checks, checks.length)
}

/** What Effect 3 said a failed check expected: its description first. */
const checkExpected = (ast: SchemaAST.AST, checks: ReadonlyArray<Check>, level: number): string => {
  const annotations = checks[level - 1]?.annotations ?? {}
  return text(annotations["description"]) ?? text(annotations["title"]) ?? text(annotations["identifier"]) ??
    `{ ${describeChecked(ast, checks, level - 1)} | filter }`
}

// ---------------------------------------------------------------------------------------------
// Effect 3's parser, reporting as its ArrayFormatter did.
// ---------------------------------------------------------------------------------------------

const typeIssue = (path: ReadonlyArray<PropertyKey>, expected: string, input: unknown): ExplainedIssue => ({
  path,
  missing: false,
  message: `Expected ${expected}, actual ${formatUnknown(input)}`
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
  const message = text(checks[level - 1]?.annotations?.["message"])
  return message === undefined ? typeIssue(path, checkExpected(ast, checks, level), input) : { path, missing: false, message }
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
          else failures.push([typeIssue([...path, key], entry.literals.map(describe).join(" | "), input[key])])
        } else {
          failures.push([{ path: [...path, key], missing: true, message: "is missing" }])
        }
      }
    } else {
      const expected = tree.candidates.length === members.length
        ? ast === undefined ? members.map(describe).join(" | ") : describe(ast)
        : tree.candidates.map(describe).join(" | ")
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
    out.push(typeIssue(path, ast === undefined ? members.map(describe).join(" | ") : describe(ast), input))
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
