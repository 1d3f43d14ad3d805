import { HttpApiBuilder, HttpApiScalar, HttpMiddleware, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Api } from "@retail/api"
import { CapacityFastLane, CapacityService } from "@retail/service-capacity"
import { UploadService } from "@retail/service-upload"
import { Duration, Effect, Layer } from "effect"
import { AuthenticationLive } from "./Authentication.ts"
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

const Background = Layer.unwrapEffect(
  Effect.map(ServerConfig, ({ runWorkers }) => (runWorkers ? UploadService.background : Layer.empty))
)

/** Every public endpoint and the background work, on whatever HttpServer and infrastructure it is given. */
const PublicAppLive = HttpApiBuilder.serve(trackInFlight).pipe(
  // No span per request: this server answers thousands of requests a second.
  HttpMiddleware.withTracerDisabledWhen(() => true),
  Layer.provide(HttpApiScalar.layer({ path: "/v1/docs" })),
  Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/v1/openapi.json" })),
  Layer.provide(ApiLive),
  Layer.provide(Background)
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
  Layer.provide(Infrastructure)
)
