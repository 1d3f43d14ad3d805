import { NodeHttpServer } from "@effect/platform-node"
import { Api, PayloadTooLarge } from "@retail/api"
import { BearerAuthentication } from "@retail/auth"
import { CapacityAdminHttp, CapacityFastLane, CapacityService, DeliveryCapacityHttp, StockHttp } from "@retail/service-capacity"
import { FilesHttp, InternalFilesHttp, LoadsHttp, ProductsHttp, UploadConfig, UploadService } from "@retail/service-upload"
import { ByteSize, Duration, Effect, Layer, Schema } from "effect"
import { HttpIncomingMessage, HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { PublicApiDocs } from "./ApiDocs.ts"
import { watchBody } from "./BodyWatchdog.ts"
import { DecodeErrorBodies } from "./DecodeErrorBody.ts"
import { createFastLaneServer, createGracefulServer, type Lane } from "./FastLaneServer.ts"
import { laneTracing } from "./FastLaneTracing.ts"
import { HealthHttp } from "./HealthHttp.ts"
import { InFlightRequests, trackInFlight } from "./InFlightRequests.ts"
import { Infrastructure } from "./Infrastructure.ts"
import { internalServer } from "./InternalServer.ts"
import { ProcessMetrics, PublicMetricsRoute, RequestMetrics } from "./Metrics.ts"
import { persistThread } from "./PersistThreadHost.ts"
import { NoRequestSpans } from "./NoRequestSpans.ts"
import { MalformedPathAnswer } from "./MalformedPath.ts"
import { logRequestErrors } from "./RequestLog.ts"
import { ServerConfig } from "./ServerConfig.ts"
import { logDrain } from "./ShutdownLog.ts"
import { withStartupLog } from "./StartupLog.ts"
import { placeWorkers } from "./WorkersPlacement.ts"

/** The public API's routes and their handlers (the OpenAPI document and its page: ApiDocs.ts). */
const ApiLive = HttpApiBuilder.layer(Api).pipe(
  Layer.provide([ProductsHttp, FilesHttp, LoadsHttp, DeliveryCapacityHttp, CapacityAdminHttp, StockHttp, HealthHttp]),
  Layer.provide([BearerAuthentication, CapacityService.authentication])
)

/** Endpoints that bound their bodies themselves (LOAD_PRODUCTS_MAX_BYTES, FILE_MAX_BYTES, CAPACITY_MAX_BODY_BYTES). */
const OWN_BODY_LIMIT = /^\/v1\/(load-products|handle-[a-z-]+|delivery\/capacity)\/?(\?|$)/

/**
 * REQUEST_MAX_BYTES for every other body: a declared Content-Length beyond it is 413 before
 * reading (past the limit mid-read, the body's reader fails instead of answering).
 */
const bodyLimit = (requestMaxBytes: number) => {
  const maxBodySize = ByteSize.bytes(requestMaxBytes)
  return <E, R>(
    app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      if (OWN_BODY_LIMIT.test(request.url)) return app
      if (Number(request.headers["content-length"] ?? "0") > requestMaxBytes) {
        return Effect.succeed(HttpServerResponse.jsonUnsafe(
          Schema.encodeSync(PayloadTooLarge)(
            new PayloadTooLarge({ message: `The request body is larger than the limit of ${requestMaxBytes} bytes (REQUEST_MAX_BYTES)` })
          ),
          { status: 413 }
        ))
      }
      return Effect.provideService(app, HttpIncomingMessage.MaxBodySize, maxBodySize)
    })
}

/**
 * What every public request passes through before its route, while its response is still a value:
 * the body limit (REQUEST_MAX_BYTES), then the body watchdog (UPLOAD_IDLE_TIMEOUT_MS,
 * UPLOAD_MIN_BYTES_PER_SECOND).
 */
const RequestGuards = HttpRouter.middleware(
  Effect.map(ServerConfig, (config) => {
    const limit = bodyLimit(config.requestMaxBytes)
    const watch = watchBody({ idleTimeoutMs: config.uploadIdleTimeoutMs, minBytesPerSecond: config.uploadMinBytesPerSecond })
    return <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) => limit(watch(app))
  }),
  { global: true }
)

/**
 * RUN_WORKERS: the batch workers, on a thread of their own where they can be (WorkersPlacement.ts),
 * else on the event loop; and the relay of load events, on the event loop (a query every 200 ms).
 */
const Background = Layer.unwrap(
  Effect.gen(function*() {
    const config = yield* ServerConfig
    if (!config.runWorkers) return Layer.empty
    const { workers } = yield* UploadConfig
    const placement = yield* placeWorkers(config, workers)
    if (placement._tag === "Thread") return Layer.merge(UploadService.outboxRelay, persistThread(placement.settings))
    yield* Effect.logInfo(`batch workers: ${workers} on the event loop's thread (${placement.reason})`)
    return UploadService.background
  }).pipe(Effect.provide(UploadConfig.layer))
)

/**
 * What runs beside the requests: the reconciler of loads, the sweeps of old loads and of the
 * capacity store's past and of the spool folders killed processes left (at start and hourly, every process), and the workers with the events relay
 * (RUN_WORKERS). Started before the listeners and stopped after them, once the requests in flight
 * ended: the in-process queue is drained of what they published before the workers stop.
 */
export const Lifecycle = Layer.mergeAll(UploadService.reconciler, UploadService.historySweep, UploadService.staleSpools, CapacityService.historySweep, Background)

/** Every public endpoint and the background work, on whatever HttpServer and infrastructure it is given. */
const PublicAppLive = HttpRouter.serve(
  Layer.mergeAll(
    ApiLive,
    PublicApiDocs,
    RequestGuards,
    DecodeErrorBodies,
    MalformedPathAnswer,
    RequestMetrics,
    PublicMetricsRoute
  ),
  {
    // The contract bounds each path parameter itself (a 400 naming it); the router's own bound (100
    // characters) would answer an empty 404 instead. node's header size bounds the path anyway.
    routerConfig: { maxParamLength: Number.POSITIVE_INFINITY },
    disableLogger: true,
    disableListenLog: true,
    middleware: (app) => trackInFlight(logRequestErrors(app))
  }
).pipe(Layer.provide(NoRequestSpans))

/** The public API on the HttpServer it is given, the internal API on its own listener, and the process metrics. */
export const AppLive = Layer.mergeAll(PublicAppLive, internalServer(InternalFilesHttp), ProcessMetrics)

/** Closed after the HTTP servers: waits (bounded) until the handlers still running, cut off or not, have ended. */
const AwaitHandlers = (shutdownGraceMs: number) =>
  Layer.effectDiscard(Effect.flatMap(InFlightRequests, (inFlight) =>
    Effect.addFinalizer(() =>
      logDrain(inFlight, inFlight.drained.pipe(Effect.timeout(Duration.millis(shutdownGraceMs + 10_000)), Effect.ignore))
    )))

/** node:http on HOST:PORT offering each request to `lane` first, if any; on shutdown requests in flight get SHUTDOWN_GRACE_MS to finish, then their connections are cut. */
const nodeListener = <E, R>(lane: Effect.Effect<Lane | undefined, E, R>) =>
  Layer.unwrap(
    Effect.gen(function*() {
      const { host, port, shutdownGraceMs } = yield* ServerConfig
      const taking = yield* lane
      return NodeHttpServer.layer(taking === undefined ? createGracefulServer(shutdownGraceMs) : createFastLaneServer(taking, shutdownGraceMs), {
        port,
        host,
        gracefulShutdownTimeout: Duration.millis(shutdownGraceMs)
      }).pipe(Layer.provideMerge(AwaitHandlers(shutdownGraceMs)))
    })
  ).pipe(Layer.provideMerge(InFlightRequests.layer))

/** node:http on HOST:PORT; POST /v1/delivery/capacity takes the fast lane before the Effect stack. */
export const Listener = nodeListener(
  Effect.gen(function*() {
    const lane = yield* CapacityFastLane
    const traced = yield* laneTracing
    return traced(lane.take)
  })
).pipe(Layer.provide(CapacityService.fastLane))

/**
 * The same listener without the fast lane: every request goes through the Effect stack, POST
 * /v1/delivery/capacity to its HttpApi route (DeliveryCapacityHttp), as on an HttpServer other than
 * node:http. The tests run the capacity answers through both (test/capacityAnswers.test.ts).
 */
export const ListenerWithoutFastLane = nodeListener(Effect.succeed(undefined))

/** What `npm start` runs: HTTP on HOST:PORT over the infrastructure chosen by configuration. */
export const ServerLive = AppLive.pipe(
  withStartupLog,
  Layer.provide(Listener),
  Layer.provide(Lifecycle),
  Layer.provide(Infrastructure)
)
