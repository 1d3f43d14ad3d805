import { NodeHttpServer } from "@effect/platform-node"
import { InternalApi } from "@retail/api"
import { InternalFileLoadSlotsLive } from "@retail/limits"
import { Context, Duration, Effect, Layer } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { NetAddress } from "effect/net"
import { InternalApiDocs } from "./ApiDocs.ts"
import { BodyWatchdog } from "./BodyWatchdog.ts"
import { createGracefulServer } from "./FastLaneServer.ts"
import { trackInFlight } from "./InFlightRequests.ts"
import { InternalMetricsRoute, RequestMetrics } from "./Metrics.ts"
import { NoRequestSpans } from "./NoRequestSpans.ts"
import { logRequestErrors } from "./RequestLog.ts"
import { ServerConfig } from "./ServerConfig.ts"

/** Where the internal listener is bound (INTERNAL_HOST:INTERNAL_PORT; a port of 0 is resolved here). */
export class InternalAddress extends Context.Service<InternalAddress, NetAddress.SocketAddress>()("@retail/server/InternalAddress") {}

const InternalListener = Layer.unwrap(
  Effect.map(ServerConfig, ({ internalHost, internalPort, shutdownGraceMs }) =>
    NodeHttpServer.layer(createGracefulServer(shutdownGraceMs), {
      port: internalPort,
      host: internalHost,
      gracefulShutdownTimeout: Duration.millis(shutdownGraceMs)
    }))
)

/**
 * Internal loads take slots of their own (INTERNAL_FILE_LOADS_PER_COMPANY): anyone on the host can
 * call this listener without a token, and must not be able to hold a company's public slots.
 */
const internalApi = <A, E, R>(handlers: Layer.Layer<A, E, R>) =>
  HttpApiBuilder.layer(InternalApi).pipe(Layer.provide(handlers), Layer.provide(InternalFileLoadSlotsLive))

const address = Layer.effect(
  InternalAddress,
  Effect.gen(function*() {
    const { address } = yield* HttpServer.HttpServer
    const where = address._tag === "UnixPathAddress" ? address.path : NetAddress.formatUrlUnsafe(address, "http")
    yield* Effect.logInfo(`Internal endpoints (no authentication: /v1/handle-json-int, /v1/openapi.json, /metrics) on ${where}`)
    return address
  })
)

/**
 * The endpoints without authentication (POST /v1/handle-json-int, whose handlers are given), their
 * OpenAPI document (GET /v1/openapi.json) and GET /metrics on their own listener, which
 * the public port never routes to: HttpRouter.serve gives it a router of its own, so its routes
 * are not served on the public port. Infrastructure comes from outside.
 */
export const internalServer = <A, E, R>(handlers: Layer.Layer<A, E, R>) =>
  HttpRouter.serve(
    Layer.mergeAll(internalApi(handlers), InternalApiDocs, BodyWatchdog, RequestMetrics, InternalMetricsRoute),
    { disableLogger: true, disableListenLog: true, middleware: (app) => trackInFlight(logRequestErrors(app)) }
  ).pipe(
    Layer.provide(NoRequestSpans),
    Layer.merge(address),
    Layer.provide(InternalListener)
  )
