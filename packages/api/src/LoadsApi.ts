import { LoadErrorsPage, LoadView } from "@retail/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiError, HttpApiGroup, OpenApi } from "effect/http-api"
import { InvalidRequest, LoadNotFound, StorageFailed } from "./Errors.ts"
import { Authentication } from "./Security.ts"

export const MAX_ERRORS_PAGE = 1000
export const DEFAULT_ERRORS_PAGE = 100

const processCode = { processCode: Schema.String }

/**
 * Query values are taken as text (or the list a repeated name gives) and checked by the handler,
 * so that a bad one is a 400 ErrorMessage naming it rather than the platform's schema issues;
 * QUERY_DOCS keeps what the OpenAPI document says they are.
 */
const QueryValue = Schema.Union([Schema.String, Schema.Array(Schema.String)])

export const ErrorsPageParams = Schema.Struct({
  cursor: Schema.optional(QueryValue),
  limit: Schema.optional(QueryValue)
})

const QUERY_DOCS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  cursor: { type: "string", description: "The nextCursor of the previous page" },
  limit: {
    type: "integer",
    minimum: 1,
    maximum: MAX_ERRORS_PAGE,
    default: DEFAULT_ERRORS_PAGE,
    description: "Errors per page"
  }
}

/** The operation's query parameters documented as QUERY_DOCS says, instead of as the text they are taken as. */
const documentQuery = (operation: Record<string, unknown>): Record<string, unknown> => {
  const parameters = operation["parameters"]
  if (!Array.isArray(parameters)) return operation
  return {
    ...operation,
    parameters: parameters.map((parameter: unknown) => {
      if (typeof parameter !== "object" || parameter === null || !("name" in parameter) || !("in" in parameter)) return parameter
      const schema = parameter.in === "query" && typeof parameter.name === "string" ? QUERY_DOCS[parameter.name] : undefined
      return schema === undefined ? parameter : { ...parameter, schema }
    })
  }
}

export class LoadsApi extends HttpApiGroup.make("loads")
  .add(
    HttpApiEndpoint.get("getLoad", "/loads/:processCode", {
      params: processCode,
      success: LoadView,
      error: [LoadNotFound, StorageFailed, HttpApiError.ForbiddenNoContent]
    }).annotate(OpenApi.Summary, "Follow a load: status, totals and timestamps")
  )
  .add(
    HttpApiEndpoint.get("getLoadErrors", "/loads/:processCode/errors", {
      params: processCode,
      query: ErrorsPageParams,
      success: LoadErrorsPage,
      error: [InvalidRequest, LoadNotFound, StorageFailed, HttpApiError.ForbiddenNoContent]
    })
      .annotate(OpenApi.Summary, "Every failed product of a load with its reason, a page at a time")
      .annotate(OpenApi.Transform, documentQuery)
  )
  .middleware(Authentication)
  .prefix("/v1")
  .annotate(OpenApi.Description, "Follow a load: its status and totals, and the reason of every product that failed")
{}
