import { Attribute, Barcode, Hierarchy, LoadAccepted, LoadSummary, MAX_PRODUCTS_PER_LOAD, Product } from "@retail/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiError, HttpApiGroup, OpenApi } from "effect/http-api"
import { InvalidRequest, PayloadTooLarge, PublishFailed, RequestTimeout, StorageFailed, UnsupportedMediaType } from "./Errors.ts"
import { Authentication } from "./Security.ts"

/**
 * The validation's Product schema, with names for the OpenAPI document: the same fields and checks
 * (domain's Product), its lists' items named Barcode, Hierarchy and Attribute. Identifiers are
 * given here, not in the domain, because the domain's messages name a schema by its identifier.
 */
export const DocumentedProduct = Product.mapFields((fields) => ({
  ...fields,
  barcodes: Schema.Array(Barcode.annotate({ identifier: "Barcode" })),
  // The same rule as the domain's `hierarchies` (a product sits in at least one hierarchy).
  hierarchies: Schema.Array(Hierarchy.annotate({ identifier: "Hierarchy" })).check(Schema.isMinLength(1)),
  lstAttributes: Schema.Array(Attribute.annotate({ identifier: "Attribute" }))
})).annotate({ identifier: "Product", description: "One product as the spec's Product table defines it" })

/**
 * The body as documented. The handler reads and validates it itself (the domain's fast path), so
 * that each product fails on its own; this schema is the document's, built from the same schemas.
 */
export const ProductsList = Schema.Struct({
  products: Schema.Array(DocumentedProduct).check(Schema.isMaxLength(MAX_PRODUCTS_PER_LOAD)).annotate({
    description: `At most ${MAX_PRODUCTS_PER_LOAD} products; an invalid one fails on its own (LoadSummary.errors)`
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
  .annotate(OpenApi.Description, "Load products as a JSON body: validated one by one, persisted asynchronously")
{}
