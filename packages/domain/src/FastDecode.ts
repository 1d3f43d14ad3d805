import { Option, type Schema, SchemaAST } from "effect"
import { inlineChecks } from "./KnownRefinements.ts"

/**
 * A decoder for the common case, compiled once from a schema's own AST: it runs the same refinement
 * filters (inline, for those whose schema id says what they check: KnownRefinements.ts), literal and
 * type checks Schema's parser runs, and builds the output the way Schema builds it (a fresh object
 * holding the declared keys in declaration order, absent optional keys left out, unknown keys dropped,
 * fresh arrays). It never explains a failure: on any doubt it answers `undefined` and the caller decodes
 * with Schema for the messages. Building it refuses schemas with nodes whose decoded value could differ
 * from the input (transformations, declarations) so a fast answer is never a different answer.
 */
export type FastDecoder<A> = (input: unknown) => A | undefined

const INVALID: unique symbol = Symbol("INVALID")
type Step = (input: unknown) => unknown

/** The options `validateProduct` decodes with; filters receive them as they would from Schema's parser. */
const PARSE_OPTIONS: SchemaAST.ParseOptions = { errors: "all", onExcessProperty: "ignore" }

export class UnsupportedSchemaError extends Error {
  constructor(readonly node: string) {
    super(`makeFastDecoder cannot compile a ${node} node`)
  }
}

const isRecord = (input: unknown): input is Readonly<Record<string, unknown>> =>
  typeof input === "object" && input !== null && !Array.isArray(input)

/** Nodes whose decoded value is the input itself, so trying union members in turn cannot change the output. */
const isScalar = (ast: SchemaAST.AST): boolean => {
  switch (ast._tag) {
    case "StringKeyword":
    case "NumberKeyword":
    case "BooleanKeyword":
    case "UndefinedKeyword":
    case "Literal":
      return true
    case "Refinement":
      return isScalar(ast.from)
    case "Union":
      return ast.types.every(isScalar)
    default:
      return false
  }
}

const compileRefinements = (ast: SchemaAST.Refinement): Step => {
  // A chain of refinements over one base runs as one loop over its filters, innermost first, as Schema runs them.
  const refinements: Array<SchemaAST.Refinement> = []
  let base: SchemaAST.AST = ast
  while (SchemaAST.isRefinement(base)) {
    refinements.unshift(base)
    base = base.from
  }
  const from = compile(base)
  const inline = inlineChecks(base, refinements)
  if (inline !== undefined) {
    const { check, others } = inline
    return (input) => {
      const value = from(input)
      if (value === INVALID || !check(value)) return INVALID
      return others.length === 0 || passes(others, value) ? value : INVALID
    }
  }
  return (input) => {
    const value = from(input)
    return value !== INVALID && passes(refinements, value) ? value : INVALID
  }
}

const passes = (refinements: ReadonlyArray<SchemaAST.Refinement>, value: unknown): boolean => {
  for (const refinement of refinements) {
    if (Option.isSome(refinement.filter(value, PARSE_OPTIONS, refinement))) return false
  }
  return true
}

/** `Schema.optional(X)`'s type, X | undefined: no struct or array accepts undefined, so only one member can decode. */
const isUndefinedOr = (ast: SchemaAST.Union): boolean =>
  ast.types.length === 2 && ast.types.some((member) => member._tag === "UndefinedKeyword")

const compileUnion = (ast: SchemaAST.Union): Step => {
  if (!ast.types.every(isScalar) && !isUndefinedOr(ast)) throw new UnsupportedSchemaError("Union with structured members")
  const members = ast.types.map(compile)
  return (input) => {
    for (const member of members) {
      const value = member(input)
      if (value !== INVALID) return value
    }
    return INVALID
  }
}

const compileArray = (ast: SchemaAST.TupleType): Step => {
  const rest = ast.rest[0]
  if (ast.elements.length > 0 || ast.rest.length !== 1 || rest === undefined) {
    throw new UnsupportedSchemaError("TupleType other than an Array")
  }
  const item = compile(rest.type)
  return (input) => {
    if (!Array.isArray(input)) return INVALID
    // Pushed, not preallocated: a packed array, which JSON.stringify writes on its fast path.
    const output: Array<unknown> = []
    for (let i = 0; i < input.length; i++) {
      const value = item(input[i])
      if (value === INVALID) return INVALID
      output.push(value)
    }
    return output
  }
}

interface Property {
  readonly name: string
  readonly optional: boolean
  readonly step: Step
}

const compileStruct = (ast: SchemaAST.TypeLiteral): Step => {
  if (ast.indexSignatures.length > 0) throw new UnsupportedSchemaError("TypeLiteral with index signatures")
  // Schema decodes an empty struct as "anything but null and undefined", not as a record.
  if (ast.propertySignatures.length === 0) throw new UnsupportedSchemaError("empty TypeLiteral")
  const properties: ReadonlyArray<Property> = ast.propertySignatures.map((ps) => {
    if (typeof ps.name !== "string") throw new UnsupportedSchemaError("TypeLiteral with symbol keys")
    return { name: ps.name, optional: ps.isOptional, step: compile(ps.type) }
  })
  return (input) => {
    if (!isRecord(input)) return INVALID
    const output: Record<string, unknown> = {}
    for (const property of properties) {
      const name = property.name
      // As in Schema: an optional key counts only when it is the object's own; a required one is read as is.
      if (property.optional && !Object.prototype.hasOwnProperty.call(input, name)) continue
      const value = property.step(input[name])
      if (value === INVALID) return INVALID
      output[name] = value
    }
    return output
  }
}

const compile = (ast: SchemaAST.AST): Step => {
  switch (ast._tag) {
    case "StringKeyword":
      return (input) => (typeof input === "string" ? input : INVALID)
    case "NumberKeyword":
      return (input) => (typeof input === "number" ? input : INVALID)
    case "BooleanKeyword":
      return (input) => (typeof input === "boolean" ? input : INVALID)
    case "UndefinedKeyword":
      return (input) => (input === undefined ? input : INVALID)
    case "Literal": {
      const literal = ast.literal
      return (input) => (input === literal ? input : INVALID)
    }
    case "Refinement":
      return compileRefinements(ast)
    case "Union":
      return compileUnion(ast)
    case "TupleType":
      return compileArray(ast)
    case "TypeLiteral":
      return compileStruct(ast)
    default:
      throw new UnsupportedSchemaError(ast._tag)
  }
}

/** Compiles `schema` once; the result answers the decoded value or `undefined` when Schema must decide. */
export const makeFastDecoder = <A, I>(schema: Schema.Schema<A, I, never>): FastDecoder<A> => {
  if (!SchemaAST.isTypeLiteral(schema.ast)) throw new UnsupportedSchemaError(`top-level ${schema.ast._tag}`)
  const step = compile(schema.ast)
  // The compiled step mirrors the schema's AST node for node, so a value it returns is the schema's Type.
  const isDecoded = (value: unknown): value is A => value !== INVALID
  return (input) => {
    const value = step(input)
    return isDecoded(value) ? value : undefined
  }
}
