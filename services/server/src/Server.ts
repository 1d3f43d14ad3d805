import {
  HttpApiBuilder,
  HttpIncomingMessage,
  HttpMiddleware,
  HttpServer,
  HttpServerRequest,
  HttpServerResponse
} from "@effect/platform"
// Imported on its own: through the package index the bundle keeps Scalar's embedded 3 MB script.
import * as HttpApiScalar from "@effect/platform/HttpApiScalar"
import { NodeHttpServer } from "@effect/platform-node"
import { Api, PayloadTooLarge } from "@retail/api"
import { CapacityFastLane, CapacityService } from "@retail/service-capacity"
import { UploadService } from "@retail/service-upload"
import { Duration, Effect, Layer, Option } from "effect"
import { AuthenticationLive } from "./Authentication.ts"
import { BodyWatchdog } from "./BodyWatchdog.ts"
import { createFastLaneServer } from "./FastLaneServer.ts"
import { HealthHttp } from "./HealthHttp.ts"
import { InFlightRequests, trackInFlight } from "./InFlightRequests.ts"
import { Infrastructure } from "./Infrastructure.ts"
import { InternalServerLive } from "./InternalServer.ts"
import { ServerConfig } from "./ServerConfig.ts"

const ApiLive = HttpApiBuilder.api(Api).pipe(
  Layer.provide([UploadService.http, CapacityService.http, HealthHttp]),
  Layer.provide([AuthenticationLive, CapacityService.authentication])
)

/** Endpoints that bound their bodies themselves (LOAD_PRODUCTS_MAX_BYTES, FILE_MAX_BYTES). */
const OWN_BODY_LIMIT = /^\/v1\/(load-products|handle-[a-z-]+)\/?(\?|$)/

/**
 * REQUEST_MAX_BYTES for every other body: a declared Content-Length beyond it is 413 before
 * reading (past the limit mid-read, node's reader drops the connection instead of answering).
 */
const BodyLimit = HttpApiBuilder.middleware(
  Effect.map(ServerConfig, ({ requestMaxBytes }) => (app) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      if (!OWN_BODY_LIMIT.test(request.url) && Number(request.headers["content-length"] ?? "0") > requestMaxBytes) {
        return Effect.succeed(HttpServerResponse.unsafeJson(
          new PayloadTooLarge({ message: `The request body is larger than the limit of ${requestMaxBytes} bytes (REQUEST_MAX_BYTES)` }),
          { status: 413 }
        ))
      }
      return OWN_BODY_LIMIT.test(request.url) ? app : HttpIncomingMessage.withMaxBodySize(app, Option.some(requestMaxBytes))
    }))
)

const Background = Layer.unwrapEffect(
  Effect.map(ServerConfig, ({ runWorkers }) => (runWorkers ? UploadService.background : Layer.empty))
)

/**
 * What runs beside the requests: the reconciler of loads (every process) and the workers with the
 * events relay (RUN_WORKERS). Started before the listeners and stopped after them, once the requests
 * in flight ended: the in-process queue is drained of what they published before the workers stop.
 */
export const Lifecycle = Layer.merge(UploadService.reconciler, Background)

/** Every public endpoint and the background work, on whatever HttpServer and infrastructure it is given. */
const PublicAppLive = HttpApiBuilder.serve(trackInFlight).pipe(
  // No span per request: this server answers thousands of requests a second.
  HttpMiddleware.withTracerDisabledWhen(() => true),
  Layer.provide(HttpApiScalar.layerCdn({ path: "/v1/docs", version: "1.39.3" })),
  Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/v1/openapi.json" })),
  Layer.provide(ApiLive),
  Layer.provide(BodyLimit),
  Layer.provide(BodyWatchdog)
)

/** The public API on the HttpServer it is given, and the internal API on its own listener. */
export const AppLive = Layer.merge(PublicAppLive, InternalServerLive)

/** Closed after the HTTP servers: waits (bounded) until the handlers still running, cut off or not, have ended. */
const AwaitHandlers = (shutdownGraceMs: number) =>
  Layer.scopedDiscard(Effect.flatMap(InFlightRequests, (inFlight) =>
    Effect.addFinalizer(() =>
      inFlight.drained.pipe(Effect.timeout(Duration.millis(shutdownGraceMs + 10_000)), Effect.ignore)
    )))

/**
 * node:http on HOST:PORT; POST /v1/delivery/capacity takes the fast lane before the Effect stack.
 * On shutdown requests in flight get SHUTDOWN_GRACE_MS to finish, then their connections are cut.
 */
export const Listener = Layer.unwrapEffect(
  Effect.gen(function*() {
    const { host, port, shutdownGraceMs } = yield* ServerConfig
    const lane = yield* CapacityFastLane
    return NodeHttpServer.layer(createFastLaneServer(lane.take, shutdownGraceMs), { port, host }).pipe(
      Layer.provideMerge(AwaitHandlers(shutdownGraceMs))
    )
  })
).pipe(Layer.provide(CapacityService.fastLane), Layer.provideMerge(InFlightRequests.Default))

/** What `npm start` runs: HTTP on HOST:PORT over the infrastructure chosen by configuration. */
export const ServerLive = AppLive.pipe(
  HttpServer.withLogAddress,
  Layer.provide(Listener),
  Layer.provide(Lifecycle),
  Layer.provide(Infrastructure)
)
