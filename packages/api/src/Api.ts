import { HttpApi, OpenApi } from "effect/http-api"
import { CapacityAdminApi, DeliveryCapacityApi } from "./CapacityApi.ts"
import { FilesApi, InternalFilesApi } from "./FilesApi.ts"
import { HealthApi } from "./HealthApi.ts"
import { LoadsApi } from "./LoadsApi.ts"
import { DEFAULT_SERVERS, tidyDocument } from "./OpenApiDocument.ts"
import { ProductsApi } from "./ProductsApi.ts"
import { CapacityStockApi } from "./StockApi.ts"

/** The public contract: served by the server, documented as OpenAPI, and used by the tests' typed client. */
export class Api extends HttpApi.make("retail-logistics")
  .add(ProductsApi)
  .add(FilesApi)
  .add(LoadsApi)
  .add(HealthApi)
  .add(DeliveryCapacityApi)
  .add(CapacityAdminApi)
  .add(CapacityStockApi)
  .annotate(OpenApi.Title, "Retail logistics: product upload and delivery capacity")
  .annotate(OpenApi.Version, "1.0.0")
  .annotate(
    OpenApi.Description,
    "Product loads (JSON, file and CSV uploads, their follow-up) and the delivery capacity engine. Error bodies are the " +
      "spec's ErrorMessage `{\"message\"}` unless a response says otherwise. POST /v1/handle-json-int (file loads for a " +
      "named company, without a token) is not on this listener: it is served on the internal listener " +
      "(INTERNAL_HOST:INTERNAL_PORT, default 127.0.0.1:8081), which serves its own document at GET /v1/openapi.json."
  )
  .annotate(OpenApi.Servers, DEFAULT_SERVERS)
  .annotate(OpenApi.Transform, tidyDocument)
{}

/** Served only on the internal listener (INTERNAL_HOST:INTERNAL_PORT): endpoints trusted callers reach without a token. */
export class InternalApi extends HttpApi.make("retail-logistics-internal")
  .add(InternalFilesApi)
  .annotate(OpenApi.Title, "Retail logistics: internal endpoints")
  .annotate(OpenApi.Version, "1.0.0")
  .annotate(
    OpenApi.Description,
    "Served only on the internal listener (INTERNAL_HOST:INTERNAL_PORT, default 127.0.0.1:8081), without authentication: " +
      "anyone who can reach that port can load products for any company. The public API's document is at GET " +
      "/v1/openapi.json on the public listener (HOST:PORT)."
  )
  .annotate(OpenApi.Servers, DEFAULT_SERVERS)
  .annotate(OpenApi.Transform, tidyDocument)
{}
