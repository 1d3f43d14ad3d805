import { Api, InternalApi } from "@retail/api"
import { HttpApi, type HttpApiGroup } from "effect/http-api"

interface RoutePattern {
  readonly method: string
  readonly path: string
  readonly matches: RegExp
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const patternOf = (method: string, path: string): RoutePattern => ({
  method,
  path,
  matches: new RegExp(`^${path.split("/").map((segment) => (segment.startsWith(":") ? "[^/]+" : escapeRegExp(segment))).join("/")}/?$`)
})

const patternsOf = <Id extends string, Groups extends HttpApiGroup.Constraint>(api: HttpApi.HttpApi<Id, Groups>): ReadonlyArray<RoutePattern> => {
  const patterns: Array<RoutePattern> = []
  HttpApi.reflect(api, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint }) => patterns.push(patternOf(endpoint.method, endpoint.path))
  })
  return patterns
}

/** Routes served beside the contracts' endpoints. */
const extraRoutes = [patternOf("GET", "/metrics"), patternOf("GET", "/v1/openapi.json"), patternOf("GET", "/v1/docs")]

const routes: ReadonlyArray<RoutePattern> = [...patternsOf(Api), ...patternsOf(InternalApi), ...extraRoutes]

/**
 * The `route` label of a request: the contract's path of the endpoint it reached
 * (`/v1/loads/:processCode`), so that path parameters do not make a series each; any other path
 * is `other`.
 */
export const routeLabel = (method: string, url: string): string => {
  const query = url.indexOf("?")
  const path = query === -1 ? url : url.slice(0, query)
  for (const route of routes) {
    if (route.matches.test(path) && (route.method === method || (method === "HEAD" && route.method === "GET"))) return route.path
  }
  for (const route of routes) if (route.matches.test(path)) return route.path
  return "other"
}
