import { HttpApiEndpoint, HttpApiError, HttpApiGroup, OpenApi } from "@effect/platform"
import { LoadErrorsPage, LoadView } from "@retail/domain"
import { Schema } from "effect"
import { LoadNotFound, StorageFailed } from "./Errors.ts"
import { Authentication } from "./Security.ts"

export const MAX_ERRORS_PAGE = 1000

const processCode = Schema.Struct({ processCode: Schema.String })

export const ErrorsPageParams = Schema.Struct({
  cursor: Schema.optional(Schema.String),
  limit: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, MAX_ERRORS_PAGE)))
})

export class LoadsApi extends HttpApiGroup.make("loads")
  .add(
    HttpApiEndpoint.get("getLoad", "/loads/:processCode")
      .setPath(processCode)
      .addSuccess(LoadView)
      .addError(LoadNotFound)
      .addError(StorageFailed)
      .addError(HttpApiError.Forbidden)
      .annotate(OpenApi.Summary, "Follow a load: status, totals and timestamps")
  )
  .add(
    HttpApiEndpoint.get("getLoadErrors", "/loads/:processCode/errors")
      .setPath(processCode)
      .setUrlParams(ErrorsPageParams)
      .addSuccess(LoadErrorsPage)
      .addError(LoadNotFound)
      .addError(StorageFailed)
      .addError(HttpApiError.Forbidden)
      .annotate(OpenApi.Summary, "Every failed product of a load with its reason, a page at a time")
  )
  .middleware(Authentication)
  .prefix("/v1")
{}
