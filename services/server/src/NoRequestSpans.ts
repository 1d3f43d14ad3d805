import { Effect, Layer } from "effect"
import { HttpMiddleware, type HttpServerRequest } from "effect/http"
import { TraceSampling } from "./Tracing.ts"

const PROBES = /^\/(health|ready|metrics)\/?(\?|$)|^\/v1\/(health|ready)\/?(\?|$)/

/** Route templates, not paths: a span name must not hold a process code or an order id. */
export const spanName = (request: HttpServerRequest.HttpServerRequest): string => {
  const path = request.url.split("?")[0] ?? ""
  const route = path
    .replace(/^\/v1\/loads\/[^/]+/, "/v1/loads/{processCode}")
    .replace(/^\/v1\/delivery\/capacity\/consumptions\/[^/]+/, "/v1/delivery/capacity/consumptions/{orderId}")
    .replace(/^\/v1\/delivery\/capacity\/nodes\/[^/]+/, "/v1/delivery/capacity/nodes/{nodeId}")
  return `${request.method} ${route}`
}

/**
 * No span per request while tracing is off (this server answers thousands of requests a second).
 * With tracing on (TraceSampling set), a sampled span per request but the probes'.
 */
export const NoRequestSpans = Layer.unwrap(
  Effect.map(Effect.service(TraceSampling), (sampling) =>
    sampling === undefined
      ? Layer.succeed(HttpMiddleware.TracerDisabledWhen, () => true)
      : Layer.mergeAll(
        Layer.succeed(HttpMiddleware.TracerDisabledWhen, (request: HttpServerRequest.HttpServerRequest) => PROBES.test(request.url)),
        Layer.succeed(HttpMiddleware.SpanNameGenerator, spanName)
      ))
)
