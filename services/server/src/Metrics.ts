import { HttpMetrics, MetricsConfig, ProcessMetricsLive, scrape } from "@retail/metrics"
import { Context, Effect, Layer } from "effect"
import { HttpEffect, HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { IncomingMessage } from "node:http"
import { routeLabel } from "./RouteLabels.ts"

const FILE_ROUTE = /^\/v1\/handle-/

/** Body bytes of a file load: its declared length once read whole, else what the socket read meanwhile. */
const bodyBytes = (request: HttpServerRequest.HttpServerRequest, bytesAtStart: number) => {
  const source = request.source
  if (!(source instanceof IncomingMessage)) return 0
  const declared = Number(source.headers["content-length"])
  return source.complete && Number.isFinite(declared) ? declared : source.socket.bytesRead - bytesAtStart
}

const socketBytes = (request: HttpServerRequest.HttpServerRequest) =>
  request.source instanceof IncomingMessage ? request.source.socket.bytesRead : 0

/**
 * Counts every request of the Effect stack by route, method and status, and its latency, from a
 * pre-response handler: it sees the final status, errors turned into responses included. The
 * capacity fast lane records its own (services/capacity/src/http/FastLane.ts).
 */
const measure = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.withFiber<HttpServerResponse.HttpServerResponse, E, R>((fiber) => {
    const started = performance.now()
    const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
    const bytesAtStart = socketBytes(request)
    HttpEffect.appendPreResponseHandlerUnsafe(fiber.context, (request, response) => {
      const route = routeLabel(request.method, request.url)
      HttpMetrics.httpRequests.add({ route, method: request.method, status: String(response.status) })
      HttpMetrics.httpRequestSeconds.observe({ route, method: request.method }, (performance.now() - started) / 1000)
      if (FILE_ROUTE.test(route)) HttpMetrics.fileBytesRead.add({ endpoint: route }, bodyBytes(request, bytesAtStart))
      return Effect.succeed(response)
    })
    return app
  })

/** The request metrics of a listener's router (METRICS_ENABLED). */
export const RequestMetrics = HttpRouter.middleware(
  Effect.map(MetricsConfig, ({ enabled }) => (enabled ? measure : <A>(app: A) => app)),
  { global: true }
)

const metricsRoute = Layer.effectDiscard(Effect.flatMap(HttpRouter.HttpRouter, (router) =>
  router.add(
    "GET",
    "/metrics",
    Effect.map(scrape, (body) => HttpServerResponse.text(body, { contentType: "text/plain; version=0.0.4; charset=utf-8" }))
  )))

/** GET /metrics on the internal listener (unless METRICS_ENABLED=false). */
export const InternalMetricsRoute = Layer.unwrap(Effect.map(MetricsConfig, ({ enabled }) => (enabled ? metricsRoute : Layer.empty)))

/** GET /metrics on the public listener, with METRICS_PUBLIC=true. */
export const PublicMetricsRoute = Layer.unwrap(
  Effect.map(MetricsConfig, (config) => (config.enabled && config.public ? metricsRoute : Layer.empty))
)

/** Memory, event-loop delay and GC of the process (unless METRICS_ENABLED=false). */
export const ProcessMetrics = Layer.unwrap(Effect.map(MetricsConfig, ({ enabled, gc }) => (enabled ? ProcessMetricsLive({ gc }) : Layer.empty)))
