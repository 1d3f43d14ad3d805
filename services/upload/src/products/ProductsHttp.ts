import { Api, CurrentPrincipal, InvalidRequest, Scopes } from "@retail/api"
import { MAX_PRODUCTS_PER_LOAD } from "@retail/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { LoadIntake } from "./LoadIntake.ts"
import { companyWithScope } from "../CompanyWithScope.ts"
import { UploadConfig } from "../UploadConfig.ts"
import { readJsonBody } from "./JsonBody.ts"

const productsOf = (body: unknown) => {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return Effect.fail(new InvalidRequest({ message: "The request body must be a JSON object with a products array" }))
  }
  const products: unknown = (body as Record<string, unknown>)["products"]
  if (products === undefined) return Effect.fail(new InvalidRequest({ message: "products: is required" }))
  if (!Array.isArray(products)) return Effect.fail(new InvalidRequest({ message: "products: must be an array" }))
  if (products.length > MAX_PRODUCTS_PER_LOAD) {
    return Effect.fail(
      new InvalidRequest({
        message: `The maximum number of products per load is ${MAX_PRODUCTS_PER_LOAD}; this load has ${products.length}`
      })
    )
  }
  return Effect.succeed(products as ReadonlyArray<unknown>)
}

export const ProductsHttp = HttpApiBuilder.group(Api, "products", (handlers) =>
  Effect.gen(function*() {
    const intake = yield* LoadIntake
    const config = yield* UploadConfig
    return handlers.handleRaw("loadProducts", ({ request }) =>
      Effect.gen(function*() {
        const company = yield* companyWithScope(yield* CurrentPrincipal, Scopes.productsWrite)
        const products = yield* Effect.flatMap(readJsonBody(request, {
          maxBytes: config.loadProductsMaxBytes,
          maxValues: config.loadProductsMaxValues,
          maxValuesVariable: "LOAD_PRODUCTS_MAX_VALUES"
        }), productsOf)
        return yield* intake.accept({ company, source: "LOAD_PRODUCTS", products })
      }))
  }))
