import { HttpApiEndpoint, HttpApiError, HttpApiGroup, HttpApiSchema, Multipart, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { InvalidRequest, PayloadTooLarge, PublishFailed, RequestTimeout, StorageFailed, TooManyRequests, UnsupportedMediaType } from "./Errors.ts"
import { LoadResult } from "./ProductsApi.ts"
import { Authentication } from "./Security.ts"

/** Documents the parts; the handlers read the body as a stream themselves (a file may be gigabytes). */
export const JsonFileParts = HttpApiSchema.MultipartStream(Schema.Struct({ productsJson: Multipart.SingleFileSchema }))

export const JsonFileIntParts = HttpApiSchema.MultipartStream(
  Schema.Struct({ company: Schema.String, productsJson: Multipart.SingleFileSchema })
)

export const CsvFileParts = HttpApiSchema.MultipartStream(Schema.Struct({
  productsCsv: Multipart.SingleFileSchema,
  hierarchiesCsv: Multipart.SingleFileSchema,
  barcodesCsv: Multipart.SingleFileSchema,
  attributesCsv: Multipart.SingleFileSchema
}))

const fileEndpoint = <Name extends string, Path extends HttpApiEndpoint.PathSegment>(name: Name, path: Path) =>
  HttpApiEndpoint.post(name, path)
    .addSuccess(LoadResult)
    .addError(InvalidRequest)
    .addError(PayloadTooLarge)
    .addError(UnsupportedMediaType)
    .addError(TooManyRequests)
    .addError(RequestTimeout)
    .addError(PublishFailed)
    .addError(StorageFailed)

export const handleJsonEndpoint = fileEndpoint("handleJson", "/handle-json")
  .setPayload(JsonFileParts)
  .addError(HttpApiError.Forbidden)
  .annotate(OpenApi.Summary, "Load a JSON file of products of any size")
  .annotate(
    OpenApi.Description,
    "Part productsJson: `{\"products\":[...]}` or a top-level array. The file is read as a stream; nothing is published " +
      "unless it is well-formed to its end. LoadSummary.errors holds at most RESPONSE_ERRORS_CAP entries; all are at /v1/loads/{processCode}/errors."
  )

export const handleJsonIntEndpoint = fileEndpoint("handleJsonInt", "/handle-json-int")
  .setPayload(JsonFileIntParts)
  .annotate(OpenApi.Summary, "Load a JSON file of products for a company (internal listener only, no authentication)")
  .annotate(OpenApi.Description, "The company part must come before the productsJson part.")

export const handleCsvEndpoint = fileEndpoint("handleCsv", "/handle-csv")
  .setPayload(CsvFileParts)
  .addError(HttpApiError.Forbidden)
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
{}

export class InternalFilesApi extends HttpApiGroup.make("internalFiles")
  .add(handleJsonIntEndpoint)
  .prefix("/v1")
{}
