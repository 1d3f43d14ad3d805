import { Schema, SchemaAST } from "effect"
import { hasNoNul, isWellFormed, NoNulSchemaId, WellFormedSchemaId } from "./Fields.ts"

/**
 * The refinements whose meaning is known from their schema id, with the parameters Schema's own
 * constructors record beside it (`Schema.maxLength(n)` records `jsonSchema: { maxLength: n }`, and
 * so on). A chain of them is checked in one function, with no call per filter: called through one
 * shared call site, Schema's filters made that site megamorphic and cost as much as the rest of the
 * decoding. A refinement whose parameters are not where they should be is not known, and is called.
 */
type Known =
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

/** A text's checks, all in one function: its length bounds, NUL, lone surrogates, patterns. */
const textCheck = (checks: ReadonlyArray<Known>): ((value: unknown) => boolean) => {
  let min = 0
  let max = Number.POSITIVE_INFINITY
  let noNul = false
  let wellFormed = false
  const patterns: Array<RegExp> = []
  for (const check of checks) {
    if (check._tag === "MinLength") min = Math.max(min, check.length)
    else if (check._tag === "MaxLength") max = Math.min(max, check.length)
    else if (check._tag === "NoNul") noNul = true
    else if (check._tag === "WellFormed") wellFormed = true
    else if (check._tag === "Pattern") patterns.push(check.regex)
  }
  return (value) => {
    if (typeof value !== "string" || value.length < min || value.length > max) return false
    if (noNul && !hasNoNul(value)) return false
    if (wellFormed && !isWellFormed(value)) return false
    for (const regex of patterns) {
      // As Schema.pattern does: a regex with the g flag keeps its lastIndex between calls.
      regex.lastIndex = 0
      if (!regex.test(value)) return false
    }
    return true
  }
}

/** A number's checks, all in one function. Bounds are written so that NaN fails them, as it fails Schema's. */
const numberCheck = (checks: ReadonlyArray<Known>): ((value: unknown) => boolean) => {
  let int = false
  let finite = false
  const lower: Array<number> = []
  const upper: Array<number> = []
  for (const check of checks) {
    if (check._tag === "Int") int = true
    else if (check._tag === "Finite") finite = true
    else if (check._tag === "AtLeast") lower.push(check.minimum)
    else if (check._tag === "Between") {
      lower.push(check.minimum)
      upper.push(check.maximum)
    }
  }
  const bounded = lower.length > 0 || upper.length > 0
  const minimum = Math.max(...lower, Number.NEGATIVE_INFINITY)
  const maximum = Math.min(...upper, Number.POSITIVE_INFINITY)
  return (value) => {
    if (typeof value !== "number") return false
    if (int && !Number.isSafeInteger(value)) return false
    if (finite && !Number.isFinite(value)) return false
    return !bounded || (value >= minimum && value <= maximum)
  }
}

export interface InlineChecks {
  /** The checks of the known refinements over a string or number base, as one predicate of the base's value. */
  readonly check: (value: unknown) => boolean
  /** The refinements that are not known, in the order Schema runs them; called one by one. */
  readonly others: ReadonlyArray<SchemaAST.Refinement>
}

/**
 * The known refinements of a chain over `base` (innermost first) as one predicate, and the others; or
 * undefined when the base is neither a string nor a number, or when no refinement is known.
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
  if (checks.length === 0) return undefined
  return { check: kind === "string" ? textCheck(checks) : numberCheck(checks), others }
}
