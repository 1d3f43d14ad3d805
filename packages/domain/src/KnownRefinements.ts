import type { SchemaAST } from "effect"
import { NoNulCheckId, WellFormedCheckId } from "./Fields.ts"

/**
 * The checks whose meaning is known from their representation id, with the parameters Schema's own
 * constructors record beside it (`Schema.isMaxLength(n)` records `{ id: "effect/schema/isMaxLength",
 * payload: { maxLength: n } }`, and so on), so that FastDecode writes them as conditions in its
 * generated code instead of calling them. A check whose parameters are not where they should be is
 * not known, and is called.
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
  | { readonly _tag: "Above"; readonly minimum: number }
  | {
    readonly _tag: "Between"
    readonly minimum: number
    readonly maximum: number
    readonly exclusiveMinimum: boolean
    readonly exclusiveMaximum: boolean
  }

const field = (record: unknown, key: string): unknown =>
  typeof record === "object" && record !== null && key in record ? (record as Readonly<Record<string, unknown>>)[key] : undefined

const numberIn = (record: unknown, key: string): number | undefined => {
  const value = field(record, key)
  return typeof value === "number" ? value : undefined
}

/** The refinement `make` builds from the number at `key`; undefined when there is none. */
const withNumber = (record: unknown, key: string, make: (value: number) => Known): Known | undefined => {
  const value = numberIn(record, key)
  return value === undefined ? undefined : make(value)
}

const flagIn = (record: unknown, key: string): boolean | undefined => {
  const value = field(record, key)
  return value === undefined ? false : typeof value === "boolean" ? value : undefined
}

const patternOf = (payload: unknown): RegExp | undefined => {
  const source = field(payload, "source")
  const flags = field(payload, "flags")
  if (typeof source !== "string" || typeof flags !== "string") return undefined
  try {
    return new RegExp(source, flags)
  } catch {
    return undefined
  }
}

const known = (filter: SchemaAST.Filter<unknown>): Known | undefined => {
  const representation = filter.annotations?.representation
  const payload = representation?.payload
  switch (representation?.id) {
    case "effect/schema/isMinLength":
      return withNumber(payload, "minLength", (length) => ({ _tag: "MinLength", length }))
    case "effect/schema/isMaxLength":
      return withNumber(payload, "maxLength", (length) => ({ _tag: "MaxLength", length }))
    case "effect/schema/isPattern": {
      const regex = patternOf(payload)
      return regex === undefined ? undefined : { _tag: "Pattern", regex }
    }
    case NoNulCheckId:
      return { _tag: "NoNul" }
    case WellFormedCheckId:
      return { _tag: "WellFormed" }
    case "effect/schema/isInt":
      return { _tag: "Int" }
    case "effect/schema/isFinite":
      return { _tag: "Finite" }
    case "effect/schema/isGreaterThanOrEqualTo":
      return withNumber(payload, "minimum", (minimum) => ({ _tag: "AtLeast", minimum }))
    case "effect/schema/isGreaterThan":
      return withNumber(payload, "exclusiveMinimum", (minimum) => ({ _tag: "Above", minimum }))
    case "effect/schema/isBetween": {
      const minimum = numberIn(payload, "minimum")
      const maximum = numberIn(payload, "maximum")
      const exclusiveMinimum = flagIn(payload, "exclusiveMinimum")
      const exclusiveMaximum = flagIn(payload, "exclusiveMaximum")
      return minimum === undefined || maximum === undefined || exclusiveMinimum === undefined || exclusiveMaximum === undefined
        ? undefined
        : { _tag: "Between", minimum, maximum, exclusiveMinimum, exclusiveMaximum }
    }
    default:
      return undefined
  }
}

const STRING_CHECKS = new Set<Known["_tag"]>(["MinLength", "MaxLength", "Pattern", "NoNul", "WellFormed"])
const NUMBER_CHECKS = new Set<Known["_tag"]>(["Int", "Finite", "AtLeast", "Above", "Between"])

export interface InlineChecks {
  readonly base: "string" | "number"
  /** The known checks, checked inline. */
  readonly checks: ReadonlyArray<Known>
  /** The checks that are not known, in the order Schema runs them; called one by one. */
  readonly others: ReadonlyArray<SchemaAST.Filter<unknown>>
}

/**
 * The filters of a node's checks, groups opened: a value passes the checks when it passes every one
 * of them, whichever of them stop the others at their failure.
 */
export const filtersOf = (checks: ReadonlyArray<SchemaAST.Check<unknown>>): ReadonlyArray<SchemaAST.Filter<unknown>> =>
  checks.flatMap((check) => (check._tag === "FilterGroup" ? filtersOf(check.checks) : [check]))

/**
 * The known checks of a node of type `base`, and the others; every filter is called when the base
 * is neither a string nor a number.
 */
export const inlineChecks = (base: SchemaAST.AST, filters: ReadonlyArray<SchemaAST.Filter<unknown>>): InlineChecks | undefined => {
  const kind = base._tag === "String" ? "string" : base._tag === "Number" ? "number" : undefined
  if (kind === undefined) return undefined
  const applicable = kind === "string" ? STRING_CHECKS : NUMBER_CHECKS
  const checks: Array<Known> = []
  const others: Array<SchemaAST.Filter<unknown>> = []
  for (const filter of filters) {
    const check = known(filter)
    if (check !== undefined && applicable.has(check._tag)) checks.push(check)
    else others.push(filter)
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
        // As Schema.isPattern does: its own copy of the regex, its lastIndex reset before each test.
        const regex = constant(check.regex)
        return `(${regex}.lastIndex = 0, !${regex}.test(${value}))`
      }
      case "Int":
        return `!Number.isSafeInteger(${value})`
      case "Finite":
        return `!Number.isFinite(${value})`
      // Written so that NaN fails a lower bound, as it fails Schema's (its Order puts NaN below every number).
      case "AtLeast":
        return `!(${value} >= ${constant(check.minimum)})`
      case "Above":
        return `!(${value} > ${constant(check.minimum)})`
      case "Between":
        return `!(${value} ${check.exclusiveMinimum ? ">" : ">="} ${constant(check.minimum)} && ${value} ${check.exclusiveMaximum ? "<" : "<="} ${constant(check.maximum)})`
    }
  })
  return `${base === "string" ? `typeof ${value} !== "string"` : `typeof ${value} !== "number"`} || ${conditions.join(" || ")}`
}
