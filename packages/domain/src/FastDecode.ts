import { Option, type Schema, SchemaAST } from "effect"
import { isWellFormed } from "./Fields.ts"
import { failureCondition, inlineChecks } from "./KnownRefinements.ts"

/**
 * A decoder for the common case, compiled once from a schema's own AST: it runs the same refinement
 * filters (inline, for those whose schema id says what they check: KnownRefinements.ts), literal and
 * type checks Schema's parser runs, and builds the output the way Schema builds it (a fresh object
 * holding the declared keys in declaration order, absent optional keys left out, unknown keys dropped,
 * fresh arrays). It never explains a failure: on any doubt it answers `undefined` and the caller decodes
 * with Schema for the messages. Building it refuses schemas with nodes whose decoded value could differ
 * from the input (transformations, declarations) so a fast answer is never a different answer.
 *
 * The decoder is generated JavaScript, one function per node of the AST (`new Function`, from the
 * schema alone: keys are written as JSON string literals, every other value is passed in, nothing of
 * an input ever reaches the generated text). Built from closures instead, every struct's properties,
 * every array's items and every refinement were called through the same few call sites, which V8
 * could neither inline nor predict: that cost as much as the checks themselves.
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

/** `Schema.optional(X)`'s type, X | undefined: no struct or array accepts undefined, so only one member can decode. */
const isUndefinedOr = (ast: SchemaAST.Union): boolean =>
  ast.types.length === 2 && ast.types.some((member) => member._tag === "UndefinedKeyword")

/** What the generated functions are given: the parameters' names and their values. */
const RUNTIME = {
  INVALID,
  hasOwn: (value: object, key: string): boolean => Object.prototype.hasOwnProperty.call(value, key),
  isWellFormed,
  fails: (refinement: SchemaAST.Refinement, value: unknown): boolean => Option.isSome(refinement.filter(value, PARSE_OPTIONS, refinement))
}

/** The generated program: its functions (`f0`, `f1`, ...) and the values they read from `R`. */
class Program {
  private readonly functions: Array<string> = []
  private readonly constants: Array<unknown> = []

  /** An expression reading `value` at run time. */
  readonly constant = (value: unknown): string => {
    this.constants.push(value)
    return `R[${this.constants.length - 1}]`
  }

  /** A new function of one parameter `v`; `body` may declare further functions. Returns its name. */
  define(body: () => string): string {
    const index = this.functions.push("") - 1
    this.functions[index] = `function f${index}(v) {\n${body()}\n}`
    return `f${index}`
  }

  link(root: string): Step {
    const parameters = ["R", ...Object.keys(RUNTIME)]
    const make = new Function(...parameters, `"use strict";\n${this.functions.join("\n")}\nreturn ${root}`)
    const step: unknown = make(this.constants, ...Object.values(RUNTIME))
    if (!isStep(step)) throw new Error("the generated decoder is not a function")
    return step
  }
}

const isStep = (value: unknown): value is Step => typeof value === "function"

const key = (name: string): string => JSON.stringify(name)

const compileRefinements = (program: Program, ast: SchemaAST.Refinement): string => {
  // A chain of refinements over one base is checked in one function, innermost first, as Schema runs them.
  const refinements: Array<SchemaAST.Refinement> = []
  let base: SchemaAST.AST = ast
  while (SchemaAST.isRefinement(base)) {
    refinements.unshift(base)
    base = base.from
  }
  const from = compile(program, base)
  const inline = inlineChecks(base, refinements)
  const called = inline === undefined ? refinements : inline.others
  return program.define(() =>
    [
      `const x = ${from}(v)`,
      `if (x === INVALID) return INVALID`,
      ...(inline === undefined ? [] : [`if (${failureCondition(inline, "x", program.constant, "isWellFormed")}) return INVALID`]),
      ...called.map((refinement) => `if (fails(${program.constant(refinement)}, x)) return INVALID`),
      `return x`
    ].join("\n")
  )
}

const compileUnion = (program: Program, ast: SchemaAST.Union): string => {
  if (!ast.types.every(isScalar) && !isUndefinedOr(ast)) throw new UnsupportedSchemaError("Union with structured members")
  const members = ast.types.map((member) => compile(program, member))
  return program.define(() => ["let x", ...members.map((member) => `x = ${member}(v)\nif (x !== INVALID) return x`), "return INVALID"].join("\n"))
}

const compileArray = (program: Program, ast: SchemaAST.TupleType): string => {
  const rest = ast.rest[0]
  if (ast.elements.length > 0 || ast.rest.length !== 1 || rest === undefined) {
    throw new UnsupportedSchemaError("TupleType other than an Array")
  }
  const item = compile(program, rest.type)
  // Pushed, not preallocated: a packed array, which JSON.stringify writes on its fast path.
  return program.define(() =>
    [
      "if (!Array.isArray(v)) return INVALID",
      "const o = []",
      `for (let i = 0; i < v.length; i++) {\nconst x = ${item}(v[i])\nif (x === INVALID) return INVALID\no.push(x)\n}`,
      "return o"
    ].join("\n")
  )
}

const compileStruct = (program: Program, ast: SchemaAST.TypeLiteral): string => {
  if (ast.indexSignatures.length > 0) throw new UnsupportedSchemaError("TypeLiteral with index signatures")
  // Schema decodes an empty struct as "anything but null and undefined", not as a record.
  if (ast.propertySignatures.length === 0) throw new UnsupportedSchemaError("empty TypeLiteral")
  const properties = ast.propertySignatures.map((ps) => {
    if (typeof ps.name !== "string") throw new UnsupportedSchemaError("TypeLiteral with symbol keys")
    return { name: key(ps.name), optional: ps.isOptional, step: compile(program, ps.type) }
  })
  return program.define(() =>
    [
      `if (typeof v !== "object" || v === null || Array.isArray(v)) return INVALID`,
      "const o = {}",
      "let x",
      // As in Schema: an optional key counts only when it is the object's own; a required one is read as is.
      ...properties.map(({ name, optional, step }) => {
        const read = `x = ${step}(v[${name}])\nif (x === INVALID) return INVALID\no[${name}] = x`
        return optional ? `if (hasOwn(v, ${name})) {\n${read}\n}` : read
      }),
      "return o"
    ].join("\n")
  )
}

const compile = (program: Program, ast: SchemaAST.AST): string => {
  switch (ast._tag) {
    case "StringKeyword":
      return program.define(() => `return typeof v === "string" ? v : INVALID`)
    case "NumberKeyword":
      return program.define(() => `return typeof v === "number" ? v : INVALID`)
    case "BooleanKeyword":
      return program.define(() => `return typeof v === "boolean" ? v : INVALID`)
    case "UndefinedKeyword":
      return program.define(() => `return v === undefined ? v : INVALID`)
    case "Literal":
      return program.define(() => `return v === ${program.constant(ast.literal)} ? v : INVALID`)
    case "Refinement":
      return compileRefinements(program, ast)
    case "Union":
      return compileUnion(program, ast)
    case "TupleType":
      return compileArray(program, ast)
    case "TypeLiteral":
      return compileStruct(program, ast)
    default:
      throw new UnsupportedSchemaError(ast._tag)
  }
}

/** Compiles `schema` once; the result answers the decoded value or `undefined` when Schema must decide. */
export const makeFastDecoder = <A, I>(schema: Schema.Schema<A, I, never>): FastDecoder<A> => {
  if (!SchemaAST.isTypeLiteral(schema.ast)) throw new UnsupportedSchemaError(`top-level ${schema.ast._tag}`)
  const program = new Program()
  const step = program.link(compile(program, schema.ast))
  // The generated code mirrors the schema's AST node for node, so a value it returns is the schema's Type.
  const isDecoded = (value: unknown): value is A => value !== INVALID
  return (input) => {
    const value = step(input)
    return isDecoded(value) ? value : undefined
  }
}
