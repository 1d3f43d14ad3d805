import type { Schema, SchemaAST } from "effect"
import { isWellFormed } from "./Fields.ts"
import { failureCondition, filtersOf, inlineChecks } from "./KnownRefinements.ts"

/**
 * A decoder for the common case, compiled once from a schema's own AST: it runs the same checks
 * (inline, for those whose representation id says what they check: KnownRefinements.ts), literal and
 * type checks Schema's parser runs, and builds the output the way Schema builds it (a fresh object
 * holding the declared keys in declaration order, absent optional keys left out, unknown keys dropped,
 * fresh arrays). As Schema's parser does, it counts a key as present when it is `in` the object, own
 * or inherited. It never explains a failure: on any doubt it answers `undefined` and the caller decodes
 * with Schema for the messages. Building it refuses schemas with nodes whose decoded value could differ
 * from the input (encodings, declarations, suspensions) so a fast answer is never a different answer.
 *
 * The decoder is generated JavaScript, one function per node of the AST (`new Function`, from the
 * schema alone: keys are written as JSON string literals, every other value is passed in, nothing of
 * an input ever reaches the generated text). Built from closures instead, every struct's properties,
 * every array's items and every check were called through the same few call sites, which V8
 * could neither inline nor predict: that cost as much as the checks themselves.
 */
export type FastDecoder<A> = (input: unknown) => A | undefined

const INVALID: unique symbol = Symbol("INVALID")
type Step = (input: unknown) => unknown

/** The options `validateProduct` decodes with; checks receive them as they would from Schema's parser. */
const PARSE_OPTIONS: SchemaAST.ParseOptions = { errors: "all", onExcessProperty: "ignore" }

export class UnsupportedSchemaError extends Error {
  constructor(readonly node: string) {
    super(`makeFastDecoder cannot compile a ${node} node`)
  }
}

/** Nodes whose decoded value is the input itself, so trying union members in turn cannot change the output. */
const isScalar = (ast: SchemaAST.AST): boolean => {
  switch (ast._tag) {
    case "String":
    case "Number":
    case "Boolean":
    case "Null":
    case "Undefined":
    case "Literal":
    case "Unknown":
    case "Any":
      return true
    case "Union":
      return ast.types.every(isScalar)
    default:
      return false
  }
}

/** `Schema.optional(X)`'s type, X | undefined: no struct or array accepts undefined, so only one member can decode. */
const isUndefinedOr = (ast: SchemaAST.Union): boolean =>
  ast.types.length === 2 && ast.types.some((member) => member._tag === "Undefined")

/** Can the node decode `undefined`? Then a required key's absence must be told from its `undefined` value. */
const acceptsUndefined = (ast: SchemaAST.AST): boolean =>
  ast._tag === "Undefined" || ast._tag === "Unknown" || ast._tag === "Any" || ast._tag === "Void" ||
  (ast._tag === "Union" && ast.types.some(acceptsUndefined))

/** What the generated functions are given: the parameters' names and their values. */
const RUNTIME = {
  INVALID,
  isWellFormed,
  fails: (filter: SchemaAST.Filter<unknown>, ast: SchemaAST.AST, value: unknown): boolean => filter.run(value, ast, PARSE_OPTIONS) !== undefined
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

/** A node's checks, run on what its base decoded, as Schema runs them after the base succeeds. */
const compileChecks = (program: Program, ast: SchemaAST.AST, base: string, checks: SchemaAST.Checks): string => {
  const filters = filtersOf(checks)
  const inline = inlineChecks(ast, filters)
  const called = inline === undefined ? filters : inline.others
  const node = called.length === 0 ? "" : program.constant(ast)
  return program.define(() =>
    [
      `const x = ${base}(v)`,
      `if (x === INVALID) return INVALID`,
      ...(inline === undefined ? [] : [`if (${failureCondition(inline, "x", program.constant, "isWellFormed")}) return INVALID`]),
      ...called.map((filter) => `if (fails(${program.constant(filter)}, ${node}, x)) return INVALID`),
      `return x`
    ].join("\n")
  )
}

const compileUnion = (program: Program, ast: SchemaAST.Union): string => {
  // A "oneOf" union fails a value that two members accept; the first member to accept it is not the answer.
  if (ast.options?.mode === "oneOf") throw new UnsupportedSchemaError("oneOf Union")
  if (!ast.types.every(isScalar) && !isUndefinedOr(ast)) throw new UnsupportedSchemaError("Union with structured members")
  const members = ast.types.map((member) => compile(program, member))
  return program.define(() => ["let x", ...members.map((member) => `x = ${member}(v)\nif (x !== INVALID) return x`), "return INVALID"].join("\n"))
}

const compileArray = (program: Program, ast: SchemaAST.Arrays): string => {
  const rest = ast.rest[0]
  if (ast.elements.length > 0 || ast.rest.length !== 1 || rest === undefined) {
    throw new UnsupportedSchemaError("Arrays other than an Array")
  }
  if (rest.context?.isOptional === true) throw new UnsupportedSchemaError("Array of optional items")
  const item = compile(program, rest)
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

const compileStruct = (program: Program, ast: SchemaAST.Objects): string => {
  if (ast.indexSignatures.length > 0) throw new UnsupportedSchemaError("Objects with index signatures")
  // Schema decodes an empty struct as "anything but null and undefined", not as a record.
  if (ast.propertySignatures.length === 0) throw new UnsupportedSchemaError("empty Objects")
  const properties = ast.propertySignatures.map((ps) => {
    // Schema writes a `__proto__` key with defineProperty; an assignment would set the prototype.
    if (typeof ps.name !== "string" || ps.name === "__proto__") throw new UnsupportedSchemaError(`Objects with the key ${String(ps.name)}`)
    return {
      name: key(ps.name),
      optional: ps.type.context?.isOptional === true,
      mayBeUndefined: acceptsUndefined(ps.type),
      step: compile(program, ps.type)
    }
  })
  return program.define(() =>
    [
      `if (typeof v !== "object" || v === null || Array.isArray(v)) return INVALID`,
      "const o = {}",
      "let x",
      // As in Schema: a key is there when it is `in` the object; an absent required key fails.
      ...properties.map(({ mayBeUndefined, name, optional, step }) => {
        const read = `x = ${step}(v[${name}])\nif (x === INVALID) return INVALID\no[${name}] = x`
        if (optional) return `if (${name} in v) {\n${read}\n}`
        // Only a type that accepts undefined could take an absent key's undefined for a value.
        return mayBeUndefined ? `if (!(${name} in v)) return INVALID\n${read}` : read
      }),
      "return o"
    ].join("\n")
  )
}

/** The node without its checks. */
const compileBase = (program: Program, ast: SchemaAST.AST): string => {
  switch (ast._tag) {
    case "String":
      return program.define(() => `return typeof v === "string" ? v : INVALID`)
    case "Number":
      return program.define(() => `return typeof v === "number" ? v : INVALID`)
    case "Boolean":
      return program.define(() => `return typeof v === "boolean" ? v : INVALID`)
    case "Undefined":
      return program.define(() => `return v === undefined ? v : INVALID`)
    case "Null":
      return program.define(() => `return v === null ? v : INVALID`)
    case "Unknown":
    case "Any":
      return program.define(() => `return v`)
    case "Literal":
      // Schema answers the input itself, so a literal 0 decodes -0 as -0.
      return program.define(() => `return v === ${program.constant(ast.literal)} ? v : INVALID`)
    case "Union":
      return compileUnion(program, ast)
    case "Arrays":
      return compileArray(program, ast)
    case "Objects":
      return compileStruct(program, ast)
    default:
      throw new UnsupportedSchemaError(ast._tag)
  }
}

const compile = (program: Program, ast: SchemaAST.AST): string => {
  if (ast.encoding !== undefined) throw new UnsupportedSchemaError(`${ast._tag} with an encoding`)
  if ("encodingChecks" in ast && ast.encodingChecks !== undefined) throw new UnsupportedSchemaError(`${ast._tag} with encoding checks`)
  const base = compileBase(program, ast)
  return ast.checks === undefined ? base : compileChecks(program, ast, base, ast.checks)
}

/** Compiles `schema` once; the result answers the decoded value or `undefined` when Schema must decide. */
export const makeFastDecoder = <S extends Schema.Top>(schema: S): FastDecoder<S["Type"]> => {
  const ast = schema.ast
  if (ast._tag !== "Objects") throw new UnsupportedSchemaError(`top-level ${ast._tag}`)
  const program = new Program()
  const step = program.link(compile(program, ast))
  // The generated code mirrors the schema's AST node for node, so a value it returns is the schema's Type.
  const isDecoded = (value: unknown): value is S["Type"] => value !== INVALID
  return (input) => {
    const value = step(input)
    return isDecoded(value) ? value : undefined
  }
}
