import { HttpApi, OpenApi } from "effect/http-api"
import { CapacityAdminApi, DeliveryCapacityApi } from "./CapacityApi.ts"
import { FilesApi, InternalFilesApi } from "./FilesApi.ts"
import { HealthApi } from "./HealthApi.ts"
import { LoadsApi } from "./LoadsApi.ts"
import { ProductsApi } from "./ProductsApi.ts"

/** The public contract: served by the server, documented as OpenAPI, and used by the tests' typed client. */
export class Api extends HttpApi.make("retail-logistics")
  .add(ProductsApi)
  .add(FilesApi)
  .add(LoadsApi)
  .add(HealthApi)
  .add(DeliveryCapacityApi)
  .add(CapacityAdminApi)
  .annotate(OpenApi.Title, "Retail logistics: product upload and delivery capacity")
  .annotate(OpenApi.Version, "1.0.0")
{}

/** Served only on the internal listener (INTERNAL_HOST:INTERNAL_PORT): endpoints trusted callers reach without a token. */
export class InternalApi extends HttpApi.make("retail-logistics-internal")
  .add(InternalFilesApi)
  .annotate(OpenApi.Title, "Retail logistics: internal endpoints")
  .annotate(OpenApi.Version, "1.0.0")
{}
