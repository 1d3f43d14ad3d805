import { Schema, SchemaAST } from "effect"
import { NoNulSchemaId, WellFormedSchemaId } from "./Fields.ts"

/**
 * The refinements whose meaning is known from their schema id, with the parameters Schema's own
 * constructors record beside it (`Schema.maxLength(n)` records `jsonSchema: { maxLength: n }`, and
 * so on), so that FastDecode writes them as conditions in its generated code instead of calling
 * them. A refinement whose parameters are not where they should be is not known, and is called.
 */
export type Known =
  | { readonly _tag: "MinLength"; readonly length: number }
  | { readonly _tag: "MaxLength"; readonly length: number }
  | { readonly _tag: "Pattern"; readonly regex: RegExp }
  | { readonly _tag: "NoNul" }
  | { readonly _tag: "WellFormed" }
  | { readonly _tag: "Int" }
  | { readonly _tag: "Finite" }
  | { readonly _tag: "AtLeast"; readonly minimum: number }
  | { readonly _tag: "Between"; readonly minimum: number; readonly maximum: number }

const numberIn = (record: unknown, key: string): number | undefined => {
  if (typeof record !== "object" || record === null || !(key in record)) return undefined
  const value: unknown = (record as Readonly<Record<string, unknown>>)[key]
  return typeof value === "number" ? value : undefined
}

const known = (refinement: SchemaAST.Refinement): Known | undefined => {
  const annotations = refinement.annotations
  const json = annotations[SchemaAST.JSONSchemaAnnotationId]
  switch (annotations[SchemaAST.SchemaIdAnnotationId]) {
    case Schema.MinLengthSchemaId: {
      const length = numberIn(json, "minLength")
      return length === undefined ? undefined : { _tag: "MinLength", length }
    }
    case Schema.MaxLengthSchemaId: {
      const length = numberIn(json, "maxLength")
      return length === undefined ? undefined : { _tag: "MaxLength", length }
    }
    case Schema.PatternSchemaId: {
      const held = annotations[Schema.PatternSchemaId]
      const regex = typeof held === "object" && held !== null && "regex" in held ? held.regex : undefined
      return regex instanceof RegExp ? { _tag: "Pattern", regex } : undefined
    }
    case NoNulSchemaId:
      return { _tag: "NoNul" }
    case WellFormedSchemaId:
      return { _tag: "WellFormed" }
    case Schema.IntSchemaId:
      return { _tag: "Int" }
    case Schema.FiniteSchemaId:
      return { _tag: "Finite" }
    case Schema.GreaterThanOrEqualToSchemaId: {
      const minimum = numberIn(json, "minimum")
      return minimum === undefined ? undefined : { _tag: "AtLeast", minimum }
    }
    case Schema.BetweenSchemaId: {
      const minimum = numberIn(json, "minimum")
      const maximum = numberIn(json, "maximum")
      return minimum === undefined || maximum === undefined ? undefined : { _tag: "Between", minimum, maximum }
    }
    default:
      return undefined
  }
}

const STRING_CHECKS = new Set<Known["_tag"]>(["MinLength", "MaxLength", "Pattern", "NoNul", "WellFormed"])
const NUMBER_CHECKS = new Set<Known["_tag"]>(["Int", "Finite", "AtLeast", "Between"])

export interface InlineChecks {
  readonly base: "string" | "number"
  /** The known refinements, checked inline. */
  readonly checks: ReadonlyArray<Known>
  /** The refinements that are not known, in the order Schema runs them; called one by one. */
  readonly others: ReadonlyArray<SchemaAST.Refinement>
}

/**
 * The known refinements of a chain over `base` (innermost first), and the others; or undefined when
 * the base is neither a string nor a number, or when no refinement is known.
 */
export const inlineChecks = (base: SchemaAST.AST, refinements: ReadonlyArray<SchemaAST.Refinement>): InlineChecks | undefined => {
  const kind = base._tag === "StringKeyword" ? "string" : base._tag === "NumberKeyword" ? "number" : undefined
  if (kind === undefined) return undefined
  const applicable = kind === "string" ? STRING_CHECKS : NUMBER_CHECKS
  const checks: Array<Known> = []
  const others: Array<SchemaAST.Refinement> = []
  for (const refinement of refinements) {
    const check = known(refinement)
    if (check !== undefined && applicable.has(check._tag)) checks.push(check)
    else others.push(refinement)
  }
  return checks.length === 0 ? undefined : { base: kind, checks, others }
}

/**
 * A JavaScript condition, true when `value` (an expression naming a string or a number, as the base
 * says) fails one of `checks`. `constant` puts a value where the generated code can read it and
 * answers the expression that reads it; `wellFormed` names `isWellFormed` there.
 */
export const failureCondition = (
  { base, checks }: InlineChecks,
  value: string,
  constant: (held: unknown) => string,
  wellFormed: string
): string => {
  const conditions = checks.map((check) => {
    switch (check._tag) {
      case "MinLength":
        return `${value}.length < ${constant(check.length)}`
      case "MaxLength":
        return `${value}.length > ${constant(check.length)}`
      case "NoNul":
        return `${value}.includes("\\u0000")`
      case "WellFormed":
        return `!${wellFormed}(${value})`
      case "Pattern": {
        // As Schema.pattern does: a regex with the g flag keeps its lastIndex between calls.
        const regex = constant(check.regex)
        return `(${regex}.lastIndex = 0, !${regex}.test(${value}))`
      }
      case "Int":
        return `!Number.isSafeInteger(${value})`
      case "Finite":
        return `!Number.isFinite(${value})`
      // Written so that NaN fails the bounds, as it fails Schema's.
      case "AtLeast":
        return `!(${value} >= ${constant(check.minimum)})`
      case "Between":
        return `!(${value} >= ${constant(check.minimum)} && ${value} <= ${constant(check.maximum)})`
    }
  })
  return `${base === "string" ? `typeof ${value} !== "string"` : `typeof ${value} !== "number"`} || ${conditions.join(" || ")}`
}
