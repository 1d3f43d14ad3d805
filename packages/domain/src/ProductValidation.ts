import { Result, SchemaParser } from "effect"
import { makeFastDecoder } from "./FastDecode.ts"
import { storableText } from "./Fields.ts"
import { type FieldProblem, fieldProblems, formatProblems } from "./IssueFormat.ts"
import { Product } from "./Product.ts"

/** A product that failed, as reported in `LoadSummary.errors`. */
export interface ProductFailure {
  readonly sku: string
  readonly error: string
}

/** Every field's problem, unknown keys dropped; the inputs are kept in the issues for the messages that show them. */
const decodeProduct = SchemaParser.decodeUnknownResult(Product, { errors: "all", onExcessProperty: "ignore", reportInput: true })
/** Same accept decisions and output as `decodeProduct`, several times faster; `undefined` means "ask Schema". */
const decodeValidProduct = makeFastDecoder(Product)

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The SKU a failure is reported under, as it can be stored (NUL and lone surrogates as U+FFFD). */
const skuOf = (raw: unknown): string =>
  isRecord(raw) && typeof raw["skuCode"] === "string" ? storableText(raw["skuCode"]) : ""

const childCodeProblems = (product: Product): ReadonlyArray<FieldProblem> => {
  const problems: Array<FieldProblem> = []
  const mustMatch = "must equal the product's productCode"
  product.barcodes.forEach((barcode, i) => {
    if (barcode.productCode !== product.productCode) problems.push({ path: `barcodes[${i}].productCode`, reason: mustMatch })
  })
  product.lstAttributes.forEach((attribute, i) => {
    if (attribute.productCode !== product.productCode) problems.push({ path: `lstAttributes[${i}].productCode`, reason: mustMatch })
  })
  return problems
}

const failure = (raw: unknown, problems: ReadonlyArray<FieldProblem>): ProductFailure => {
  const sku = skuOf(raw)
  const error = formatProblems(problems)
  return { sku, error: sku === "" && !error.includes("skuCode") ? `skuCode: is required; ${error}` : error }
}

const checked = (raw: unknown, product: Product): Result.Result<Product, ProductFailure> => {
  const problems = childCodeProblems(product)
  return problems.length === 0 ? Result.succeed(product) : Result.fail(failure(raw, problems))
}

/**
 * Checks one product against every rule of the spec's Product, Barcode, Hierarchy and Attribute tables,
 * with Schema alone. The reference `validateProduct` must agree with (its property test compares them).
 */
export const validateProductWithSchema = (raw: unknown): Result.Result<Product, ProductFailure> => {
  if (!isRecord(raw)) return Result.fail(failure(raw, [{ path: "", reason: "product must be a JSON object" }]))
  return Result.match(decodeProduct(raw), {
    onFailure: (issue) => Result.fail(failure(raw, fieldProblems(issue))),
    onSuccess: (product) => checked(raw, product)
  })
}

/** Checks one product like `validateProductWithSchema`; valid products skip Schema's parser and its messages. */
export const validateProduct = (raw: unknown): Result.Result<Product, ProductFailure> => {
  const product = decodeValidProduct(raw)
  return product === undefined ? validateProductWithSchema(raw) : checked(raw, product)
}
