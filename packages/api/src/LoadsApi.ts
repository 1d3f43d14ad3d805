import { HttpApiEndpoint, HttpApiError, HttpApiGroup, OpenApi } from "@effect/platform"
import { LoadErrorsPage, LoadView } from "@retail/domain"
import { Schema } from "effect"
import { InvalidRequest, LoadNotFound, StorageFailed } from "./Errors.ts"
import { Authentication } from "./Security.ts"

export const MAX_ERRORS_PAGE = 1000
export const DEFAULT_ERRORS_PAGE = 100

const processCode = Schema.Struct({ processCode: Schema.String })

/**
 * Query values are taken as text (or the list a repeated name gives) and checked by the handler,
 * so that a bad one is a 400 ErrorMessage naming it rather than the platform's schema issues;
 * `jsonSchema` keeps what the OpenAPI document says they are.
 */
const queryValue = (jsonSchema: object) => Schema.Union(Schema.String, Schema.Array(Schema.String)).annotations({ jsonSchema })

export const ErrorsPageParams = Schema.Struct({
  cursor: Schema.optional(queryValue({ type: "string", description: "The nextCursor of the previous page" })),
  limit: Schema.optional(queryValue({
    type: "integer",
    minimum: 1,
    maximum: MAX_ERRORS_PAGE,
    default: DEFAULT_ERRORS_PAGE,
    description: "Errors per page"
  }))
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
      .addError(InvalidRequest)
      .addError(LoadNotFound)
      .addError(StorageFailed)
      .addError(HttpApiError.Forbidden)
      .annotate(OpenApi.Summary, "Every failed product of a load with its reason, a page at a time")
  )
  .middleware(Authentication)
  .prefix("/v1")
{}
