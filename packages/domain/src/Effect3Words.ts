import { SchemaAST } from "effect"

/**
 * Effect 3's words for a value, a schema node, a failed check and a path: the one source of the
 * texts clients read in rejections (capacity's SchemaExplain.ts, verified against Effect 3 on
 * 25.8k inputs, the product messages of IssueFormat.ts and the server's decode error bodies).
 * Effect 4 words all of these differently; these are Effect 3's, byte for byte.
 */

export type Annotations = { readonly [key: string]: unknown } | undefined

/** A string annotation, if the node has one under `key`. */
export const annotationText = (annotations: Annotations, key: string): string | undefined => {
  const value = annotations?.[key]
  return typeof value === "string" ? value : undefined
}

/** Effect 3's `getExpected` of a node that names itself: its identifier, else its title, else its description. */
export const expectedOf = (annotations: Annotations): string | undefined =>
  annotationText(annotations, "identifier") ?? annotationText(annotations, "title") ?? annotationText(annotations, "description")

// ---------------------------------------------------------------------------------------------
// Effect 3's `formatUnknown` (Inspectable.ts), as its parser called it: no indentation.
// ---------------------------------------------------------------------------------------------

const isObjectLike = (input: unknown): input is Readonly<Record<PropertyKey, unknown>> =>
  typeof input === "object" && input !== null

/** A key as Effect 3 wrote it: a string quoted, a number or symbol as it is. */
export const formatKey = (key: PropertyKey): string => (typeof key === "string" ? JSON.stringify(key) : String(key))

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

/**
 * Deeper than this, an array or object is written `[...]` or `{...}`: a request body nested
 * 100,000 deep would overflow the stack (Effect 3 did; a value this deep is never a real one).
 */
const MAX_FORMAT_DEPTH = 100

const formatValue = (value: unknown, seen: WeakSet<object>, depth = 0): string => {
  if (Array.isArray(value)) {
    if (seen.has(value)) return "[Circular]"
    if (depth >= MAX_FORMAT_DEPTH) return "[...]"
    seen.add(value)
    return `[${value.map((item) => formatValue(item, seen, depth + 1)).join(",")}]`
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
      return cause ? `${text} (cause: ${formatValue(cause, seen, depth + 1)})` : text
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
    return `${value.constructor.name}(${formatValue(Array.from(value), seen, depth + 1)})`
  }
  if (isObjectLike(value)) {
    if (seen.has(value)) return "[Circular]"
    if (depth >= MAX_FORMAT_DEPTH) return "{...}"
    seen.add(value)
    const body = `{${Reflect.ownKeys(value).map((key) => `${formatKey(key)}:${formatValue(value[key], seen, depth + 1)}`).join(",")}}`
    const name = constructorName(value)
    return name === undefined ? body : `${name}(${body})`
  }
  return String(value)
}

/** A value as Effect 3 quoted it in `actual <value>`. */
export const formatUnknown = (input: unknown): string => formatValue(input, new WeakSet())

// ---------------------------------------------------------------------------------------------
// Paths.
// ---------------------------------------------------------------------------------------------

/** `barcodes[0].productCode`: a field path as a reader would write it ("" for the root). */
export const formatFieldPath = (path: ReadonlyArray<PropertyKey>): string => {
  let out = ""
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`
    else out += out === "" ? String(key) : `.${String(key)}`
  }
  return out
}

/** `["barcodes"][0]`: a path as Effect 3's tree formatter wrote it. */
export const formatTreePath = (path: ReadonlyArray<PropertyKey>): string => path.map((key) => `[${formatKey(key)}]`).join("")

// ---------------------------------------------------------------------------------------------
// Effect 3's descriptions of a schema (`String(ast)`).
// ---------------------------------------------------------------------------------------------

/** A key whose value may be absent or undefined and is then decoded as a default (it has an encoding). */
export const hasDecodingDefault = (ast: SchemaAST.AST): boolean => ast.encoding !== undefined

/** A struct with a defaulted key was, in Effect 3, a transformation between two structs. */
export const hasDecodingDefaults = (ast: SchemaAST.Objects): boolean => ast.propertySignatures.some((ps) => hasDecodingDefault(ps.type))

export interface DescribeOptions {
  /**
   * Every key with an encoding is a decoding default (Effect 3's `optionalWith` default), so that a
   * struct with one is described as the transformation it was in Effect 3 (the capacity schemas).
   */
  readonly defaultedKeys: boolean
}

export interface Describer {
  /** The node without its checks. */
  readonly describeBase: (ast: SchemaAST.AST) => string
  /** The node with its first `level` checks (all of them by default), as Effect 3 wrote a chain of refinements. */
  readonly describe: (ast: SchemaAST.AST, level?: number) => string
  /**
   * What Effect 3 said a failed check expected: its description, title or identifier, else the
   * refinement it was over the checks before it (`index`, its position on `ast`, found if not given).
   */
  readonly checkExpected: (ast: SchemaAST.AST | undefined, check: SchemaAST.Check<unknown>, index?: number) => string
}

/** The nodes Effect 3 wrote as a keyword. */
const KEYWORDS: Partial<Record<SchemaAST.AST["_tag"], string>> = {
  String: "string",
  Number: "number",
  Boolean: "boolean",
  Null: "null",
  Undefined: "undefined",
  Unknown: "unknown"
}

export const makeDescriber = (options: DescribeOptions): Describer => {
  const describeProperty = (ps: SchemaAST.PropertySignature): string => {
    const readonly = ps.type.context?.isMutable === true ? "" : "readonly "
    return `${readonly}${String(ps.name)}${SchemaAST.isOptional(ps.type) ? "?" : ""}: ${describe(ps.type)}`
  }

  const describeBase = (ast: SchemaAST.AST): string => {
    const expected = expectedOf(ast.annotations)
    switch (ast._tag) {
      case "Objects":
        if (options.defaultedKeys && hasDecodingDefaults(ast)) return expected ?? "(Struct (Encoded side) <-> Struct (Type side))"
        if (expected !== undefined) return expected
        return ast.propertySignatures.length === 0 ? "{}" : `{ ${ast.propertySignatures.map(describeProperty).join("; ")} }`
      case "Arrays": {
        const item = ast.rest[0]
        return expected ??
          (ast.elements.length === 0 && ast.rest.length === 1 && item !== undefined ? `ReadonlyArray<${describe(item)}>` : ast._tag)
      }
      case "Union":
        return expected ?? ast.types.map((member) => describe(member)).join(" | ")
      case "Literal":
        return expected ?? formatUnknown(ast.literal)
      default:
        return expected ?? KEYWORDS[ast._tag] ?? ast._tag
    }
  }

  const describe = (ast: SchemaAST.AST, level = ast.checks?.length ?? 0): string => {
    const check = level > 0 ? ast.checks?.[level - 1] : undefined
    if (check === undefined) return describeBase(ast)
    const annotations = check.annotations
    const identifier = annotationText(annotations, "identifier")
    if (identifier !== undefined) return identifier
    const expected = annotationText(annotations, "title") ?? annotationText(annotations, "description")
    if (expected === undefined) return `{ ${describe(ast, level - 1)} | filter }`
    return level > 1 ? `${describe(ast, level - 1)} & ${expected}` : expected
  }

  const checkExpected = (
    ast: SchemaAST.AST | undefined,
    check: SchemaAST.Check<unknown>,
    index = ast?.checks?.indexOf(check) ?? -1
  ): string => {
    const annotations = check.annotations
    return annotationText(annotations, "description") ?? annotationText(annotations, "title") ??
      annotationText(annotations, "identifier") ?? (ast === undefined || index < 0 ? "<filter>" : `{ ${describe(ast, index)} | filter }`)
  }

  return { describeBase, describe, checkExpected }
}

const plain = makeDescriber({ defaultedKeys: false })

/** The node without its checks, as Effect 3 wrote it. */
export const describeBase: (ast: SchemaAST.AST) => string = plain.describeBase

/** The node with its first `level` checks (all by default), as Effect 3 wrote it. */
export const describe: (ast: SchemaAST.AST, level?: number) => string = plain.describe

/** What Effect 3 said a failed check expected. */
export const checkExpected: (ast: SchemaAST.AST | undefined, check: SchemaAST.Check<unknown>, index?: number) => string =
  plain.checkExpected

/** Effect 3's default message of a value a node did not take. */
export const expectedActual = (expected: string, actual: unknown): string => `Expected ${expected}, actual ${formatUnknown(actual)}`
