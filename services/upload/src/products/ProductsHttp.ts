import { Api, CurrentPrincipal, Scopes } from "@retail/api"
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { companyWithScope } from "../CompanyWithScope.ts"
import { ProductLoads } from "./ProductLoads.ts"

export const ProductsHttp = HttpApiBuilder.group(Api, "products", (handlers) =>
  Effect.gen(function*() {
    const loads = yield* ProductLoads
    return handlers.handleRaw("loadProducts", ({ request }) =>
      Effect.gen(function*() {
        const company = yield* companyWithScope(yield* CurrentPrincipal, Scopes.productsWrite)
        return yield* loads.load(request, company)
      }))
  })).pipe(Layer.provide(ProductLoads.layer))
