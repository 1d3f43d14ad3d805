import { Api, InternalApi, serversOf, withServers } from "@retail/api"
import { Effect, Layer, Option, Stream } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { OpenApi } from "effect/http-api"
import { scalarScript } from "./ScalarScript.ts"
import { ServerConfig } from "./ServerConfig.ts"

/** JSON inside a <script> element: nothing in it can close the element. */
const scriptJson = (value: unknown): string =>
  JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029")

const escapeHtml = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

/** Where /v1/docs loads Scalar's script from: this server, relative to the page, so a proxy's path prefix is kept. */
export const SCALAR_SCRIPT_PATH = "/v1/docs/scalar.js"

/** The reference page: the document embedded, Scalar's script from this server, no font from the internet. */
const docsPage = (document: OpenApi.OpenAPISpec): string => `<!doctype html>
<html>
  <head>
    <meta charset="utf-8" />
    <title>${escapeHtml(document.info.title)}</title>
    <meta name="viewport" content="width=device-width, initial-scale=1" />
  </head>
  <body>
    <div id="api-reference-container"></div>
    <script src="docs/scalar.js"></script>
    <script>
      window.Scalar.createApiReference(document.getElementById("api-reference-container"), {
        _integration: "html",
        withDefaultFonts: false,
        content: ${scriptJson(document)}
      })
    </script>
  </body>
</html>`

/**
 * The public document, its `servers` from OPENAPI_SERVERS (unset: the origin it was fetched from),
 * at GET /v1/openapi.json; its reference page at GET /v1/docs, whose script is streamed from the
 * installed package at GET /v1/docs/scalar.js (ScalarScript.ts).
 */
export const PublicApiDocs = Layer.unwrap(
  Effect.map(ServerConfig, ({ openapiServers }) => {
    const base = OpenApi.fromApi(Api)
    const document = Option.match(openapiServers, { onNone: () => base, onSome: (setting) => withServers(base, serversOf(setting)) })
    const page = docsPage(document)
    return Layer.mergeAll(
      HttpRouter.add("GET", "/v1/openapi.json", Effect.sync(() => HttpServerResponse.jsonUnsafe(document))),
      HttpRouter.add("GET", "/v1/docs", Effect.sync(() => HttpServerResponse.html(page))),
      HttpRouter.add(
        "GET",
        SCALAR_SCRIPT_PATH,
        Effect.sync(() =>
          HttpServerResponse.stream(Stream.fromAsyncIterable(scalarScript(), (error) => error), {
            contentType: "text/javascript; charset=utf-8",
            headers: { "cache-control": "public, max-age=86400" }
          })
        )
      )
    )
  })
)

/** The internal listener's own document (POST /v1/handle-json-int) at GET /v1/openapi.json there. */
export const InternalApiDocs = Layer.unwrap(Effect.sync(() => {
  const document = OpenApi.fromApi(InternalApi)
  return HttpRouter.add("GET", "/v1/openapi.json", Effect.sync(() => HttpServerResponse.jsonUnsafe(document)))
}))
