import { Cause, Effect, Exit, Option } from "effect"
import { HttpServerError, HttpServerRequest, type HttpServerResponse } from "effect/http"

const pathOf = (url: string) => url.split("?")[0] ?? url

/**
 * One log line per request answered with an error, at its level: 5xx at error with the cause (when
 * the answer came from a failure), 4xx at debug (a client's mistake is the client's to read). Other
 * requests log nothing: this server answers thousands a second.
 */
export const logRequestErrors = <E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Effect.onExit(app, (exit) => {
      let status: number
      let cause: Cause.Cause<unknown> | undefined
      if (Exit.isSuccess(exit)) {
        status = exit.value.status
      } else {
        const [response, stripped] = HttpServerError.causeResponseStripped(exit.cause)
        status = response.status
        cause = Option.getOrUndefined(stripped)
      }
      if (status < 400) return Effect.void
      const path = pathOf(request.url)
      const line = `${request.method} ${path} answered ${status}`
      const annotations = { "http.method": request.method, "http.path": path, "http.status": status }
      if (status < 500) return Effect.annotateLogs(Effect.logDebug(line), annotations)
      return Effect.annotateLogs(cause === undefined ? Effect.logError(line) : Effect.logError(line, cause), annotations)
    }))
