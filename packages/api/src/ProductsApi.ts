import { LoadAccepted, LoadSummary, MAX_PRODUCTS_PER_LOAD } from "@retail/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiError, HttpApiGroup, OpenApi } from "effect/http-api"
import { InvalidRequest, PayloadTooLarge, PublishFailed, RequestTimeout, StorageFailed, UnsupportedMediaType } from "./Errors.ts"
import { Authentication } from "./Security.ts"

/** The body as documented; the handler decodes it itself so that each product fails on its own. */
export const ProductsList = Schema.Struct({
  products: Schema.Array(Schema.Unknown).annotate({
    description: `Products as in the spec's Product table; at most ${MAX_PRODUCTS_PER_LOAD}`
  })
}).annotate({ identifier: "ProductsList" })

export const LoadResult = Schema.Union([LoadAccepted, LoadSummary])

export class ProductsApi extends HttpApiGroup.make("products")
  .add(
    HttpApiEndpoint.post("loadProducts", "/load-products", {
      payload: ProductsList,
      success: LoadResult,
      error: [
        InvalidRequest,
        PayloadTooLarge,
        UnsupportedMediaType,
        RequestTimeout,
        PublishFailed,
        StorageFailed,
        HttpApiError.ForbiddenNoContent
      ]
    })
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
