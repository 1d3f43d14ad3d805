import { Either } from "effect"
import type { Product } from "./Product.ts"
import { makeProductCodeIndex } from "./ProductCodeIndex.ts"
import { type ProductFailure, validateProduct } from "./ProductValidation.ts"

/**
 * Validates the products of one load in arrival order. Stateful: a productCode seen earlier
 * in the same load wins, later occurrences fail, and a product's own companyCode must agree
 * with the company the load is for.
 */
export interface LoadValidator {
  readonly validate: (raw: unknown, index: number) => Either.Either<Product, ProductFailure>
}

export const makeLoadValidator = (company: string): LoadValidator => {
  const firstIndexByCode = makeProductCodeIndex()
  return {
    validate: (raw, index) =>
      Either.flatMap(validateProduct(raw), (product) => {
        if (product.companyCode != null && product.companyCode !== company) {
          return Either.left({
            sku: product.skuCode,
            error: `companyCode: is ${product.companyCode} but this load is for company ${company}`
          })
        }
        const first = firstIndexByCode.firstOrAdd(product.productCode, index)
        if (first !== undefined) {
          return Either.left({
            sku: product.skuCode,
            error: `productCode: ${product.productCode} already appears at products[${first}] of this load; the first occurrence wins`
          })
        }
        return Either.right(product)
      })
  }
}
