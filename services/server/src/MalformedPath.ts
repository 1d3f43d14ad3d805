import { Effect } from "effect"
import { HttpRouter, HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"

/**
 * A path whose percent-encoding does not decode (`%ZZ`, `%D8%00`: not UTF-8) is no route to the
 * router, which would answer an empty 404; it is a malformed request, 400 with the spec's
 * ErrorMessage saying so. A path that decodes and names no endpoint stays the router's 404.
 */

const decodes = (url: string): boolean => {
  const end = url.search(/[?#]/)
  try {
    decodeURIComponent(end === -1 ? url : url.slice(0, end))
    return true
  } catch {
    return false
  }
}

const MALFORMED = { message: "Invalid request: the path is not valid percent-encoded UTF-8" }

const isRouteNotFound = (error: unknown): boolean =>
  HttpServerError.isHttpServerError(error) && error.reason._tag === "RouteNotFound"

export const MalformedPathAnswer = HttpRouter.middleware(
  <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    Effect.catch(app, (error) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        isRouteNotFound(error) && !decodes(request.url)
          ? Effect.succeed(HttpServerResponse.jsonUnsafe(MALFORMED, { status: 400 }))
          : Effect.fail(error))),
  { global: true }
)
