import { HttpApi, OpenApi } from "@effect/platform"
import { CapacityAdminApi, DeliveryCapacityApi } from "./CapacityApi.ts"
import { HealthApi } from "./HealthApi.ts"
import { LoadsApi } from "./LoadsApi.ts"
import { ProductsApi } from "./ProductsApi.ts"

/** The public contract: served by the server, documented as OpenAPI, and used by the tests' typed client. */
export class Api extends HttpApi.make("retail-logistics")
  .add(ProductsApi)
  .add(LoadsApi)
  .add(HealthApi)
  .add(DeliveryCapacityApi)
  .add(CapacityAdminApi)
  .annotate(OpenApi.Title, "Retail logistics: product upload and delivery capacity")
  .annotate(OpenApi.Version, "1.0.0")
{}
