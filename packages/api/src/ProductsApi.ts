import { HttpApiEndpoint, HttpApiError, HttpApiGroup, OpenApi } from "@effect/platform"
import { LoadAccepted, LoadSummary, MAX_PRODUCTS_PER_LOAD } from "@retail/domain"
import { Schema } from "effect"
import { InvalidRequest, PayloadTooLarge, PublishFailed, RequestTimeout, StorageFailed, UnsupportedMediaType } from "./Errors.ts"
import { Authentication } from "./Security.ts"

/** The body as documented; the handler decodes it itself so that each product fails on its own. */
export const ProductsList = Schema.Struct({
  products: Schema.Array(Schema.Unknown).annotations({
    description: `Products as in the spec's Product table; at most ${MAX_PRODUCTS_PER_LOAD}`
  })
}).annotations({ identifier: "ProductsList" })

export const LoadResult = Schema.Union(LoadAccepted, LoadSummary)

export class ProductsApi extends HttpApiGroup.make("products")
  .add(
    HttpApiEndpoint.post("loadProducts", "/load-products")
      .setPayload(ProductsList)
      .addSuccess(LoadResult)
      .addError(InvalidRequest)
      .addError(PayloadTooLarge)
      .addError(UnsupportedMediaType)
      .addError(RequestTimeout)
      .addError(PublishFailed)
      .addError(StorageFailed)
      .addError(HttpApiError.Forbidden)
      .annotate(OpenApi.Summary, "Load up to 3000 products")
      .annotate(
        OpenApi.Description,
        "Validates each product, publishes the valid ones for asynchronous persistence and answers at once: " +
          "LoadAccepted when every product was accepted, LoadSummary with per-SKU errors when some failed."
      )
  )
  .middleware(Authentication)
  .prefix("/v1")
{}
