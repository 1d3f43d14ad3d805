import { Result } from "effect"
import type { Product } from "./Product.ts"
import { makeProductCodeIndex, type ProductCodeIndex } from "./ProductCodeIndex.ts"
import { type ProductFailure, validateProduct } from "./ProductValidation.ts"

/**
 * Validates the products of one load in arrival order. Stateful: a productCode seen earlier
 * in the same load wins, later occurrences fail, and a product's own companyCode must agree
 * with the company the load is for.
 */
export interface LoadValidator {
  readonly validate: (raw: unknown, index: number) => Result.Result<Product, ProductFailure>
}

/**
 * The rules of a load that look at one product alone: the product's own rules and its companyCode
 * against the load's company. Stateless, so products can be checked apart (in worker threads) and
 * the duplicates judged afterwards, in order, by `makeFirstOccurrences`.
 */
export const validateForCompany = (raw: unknown, company: string): Result.Result<Product, ProductFailure> =>
  Result.flatMap(validateProduct(raw), (product) =>
    product.companyCode != null && product.companyCode !== company
      ? Result.fail({ sku: product.skuCode, error: `companyCode: is ${product.companyCode} but this load is for company ${company}` })
      : Result.succeed(product))

/** What the duplicate rule needs of an index of codes: in memory by default, spilled to disk by file loads. */
export type FirstOccurrenceIndex = Pick<ProductCodeIndex, "firstOrAdd">

/**
 * The duplicate rule of a load: called in arrival order with each product that passed
 * `validateForCompany`, it fails every productCode already seen (the first occurrence wins).
 */
export const makeFirstOccurrences = (firstIndexByCode: FirstOccurrenceIndex = makeProductCodeIndex()) => {
  return (productCode: string, skuCode: string, index: number): ProductFailure | undefined => {
    const first = firstIndexByCode.firstOrAdd(productCode, index)
    return first === undefined
      ? undefined
      : { sku: skuCode, error: `productCode: ${productCode} already appears at products[${first}] of this load; the first occurrence wins` }
  }
}

export const makeLoadValidator = (company: string, codes?: FirstOccurrenceIndex): LoadValidator => {
  const firstOccurrence = makeFirstOccurrences(codes)
  return {
    validate: (raw, index) =>
      Result.flatMap(validateForCompany(raw, company), (product) => {
        const duplicate = firstOccurrence(product.productCode, product.skuCode, index)
        return duplicate === undefined ? Result.succeed(product) : Result.fail(duplicate)
      })
  }
}
