import { Schema } from "effect"
import { Multipart } from "effect/http"
import { HttpApiEndpoint, HttpApiError, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { InvalidRequest, PayloadTooLarge, PublishFailed, RequestTimeout, StorageFailed, TooManyRequests, UnsupportedMediaType } from "./Errors.ts"
import { LoadResult } from "./ProductsApi.ts"
import { Authentication } from "./Security.ts"

/** Documents the parts; the handlers read the body as a stream themselves (a file may be gigabytes). */
export const JsonFileParts = Schema.Struct({ productsJson: Multipart.SingleFileSchema }).pipe(HttpApiSchema.asMultipartStream())

export const JsonFileIntParts = Schema.Struct({ company: Schema.String, productsJson: Multipart.SingleFileSchema }).pipe(
  HttpApiSchema.asMultipartStream()
)

export const CsvFileParts = Schema.Struct({
  productsCsv: Multipart.SingleFileSchema,
  hierarchiesCsv: Multipart.SingleFileSchema,
  barcodesCsv: Multipart.SingleFileSchema,
  attributesCsv: Multipart.SingleFileSchema
}).pipe(HttpApiSchema.asMultipartStream())

/** What every file load may answer besides its LoadResult. */
const fileErrors = [InvalidRequest, PayloadTooLarge, UnsupportedMediaType, TooManyRequests, RequestTimeout, PublishFailed, StorageFailed] as const

export const handleJsonEndpoint = HttpApiEndpoint.post("handleJson", "/handle-json", {
  payload: JsonFileParts,
  success: LoadResult,
  error: [...fileErrors, HttpApiError.ForbiddenNoContent]
})
  .annotate(OpenApi.Summary, "Load a JSON file of products of any size")
  .annotate(
    OpenApi.Description,
    "Part productsJson: `{\"products\":[...]}` or a top-level array. The file is read as a stream; nothing is published " +
      "unless it is well-formed to its end. LoadSummary.errors holds at most RESPONSE_ERRORS_CAP entries; all are at /v1/loads/{processCode}/errors."
  )

export const handleJsonIntEndpoint = HttpApiEndpoint.post("handleJsonInt", "/handle-json-int", {
  payload: JsonFileIntParts,
  success: LoadResult,
  error: fileErrors
})
  .annotate(OpenApi.Summary, "Load a JSON file of products for a company (internal listener only, no authentication)")
  .annotate(OpenApi.Description, "The company and productsJson parts may come in either order.")

export const handleCsvEndpoint = HttpApiEndpoint.post("handleCsv", "/handle-csv", {
  payload: CsvFileParts,
  success: LoadResult,
  error: [...fileErrors, HttpApiError.ForbiddenNoContent]
})
  .annotate(OpenApi.Summary, "Load products from four CSV files (docs/csv-format.md)")
  .annotate(
    OpenApi.Description,
    "Parts productsCsv, hierarchiesCsv, barcodesCsv, attributesCsv (all required, any order): a header row of the spec's field " +
      "names, `,` or `;`, child rows joined to products by productCode. A missing part, a header without a required column or an " +
      "unreadable file is 400 and publishes nothing; a bad row fails its product with a reason naming file and line."
  )

export class FilesApi extends HttpApiGroup.make("files")
  .add(handleJsonEndpoint)
  .add(handleCsvEndpoint)
  .middleware(Authentication)
  .prefix("/v1")
  .annotate(OpenApi.Description, "Load products from files of any size (multipart): one JSON file, or four CSV files")
{}

export class InternalFilesApi extends HttpApiGroup.make("internalFiles")
  .add(handleJsonIntEndpoint)
  .prefix("/v1")
  .annotate(OpenApi.Description, "File loads for a named company, for trusted callers on the internal listener")
{}
