import { HttpApiBuilder, HttpApiScalar, HttpIncomingMessage, HttpMiddleware, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Api } from "@retail/api"
import { CapacityFastLane, CapacityService } from "@retail/service-capacity"
import { UploadService } from "@retail/service-upload"
import { Effect, Layer, Option } from "effect"
import { AuthenticationLive } from "./Authentication.ts"
import { createFastLaneServer } from "./FastLaneServer.ts"
import { HealthHttp } from "./HealthHttp.ts"
import { Infrastructure } from "./Infrastructure.ts"
import { ServerConfig } from "./ServerConfig.ts"

const ApiLive = HttpApiBuilder.api(Api).pipe(
  Layer.provide([UploadService.http, CapacityService.http, HealthHttp]),
  Layer.provide([AuthenticationLive, CapacityService.authentication])
)

/** Bounds every body the framework reads; endpoints with their own limit (load-products, file parts) set it locally. */
const BodyLimit = HttpApiBuilder.middleware(
  Effect.map(ServerConfig, ({ requestMaxBytes }) => (app) => HttpIncomingMessage.withMaxBodySize(app, Option.some(requestMaxBytes)))
)

const Background = Layer.unwrapEffect(
  Effect.map(ServerConfig, ({ runWorkers }) => (runWorkers ? UploadService.background : Layer.empty))
)

/** Every endpoint and the background work, on whatever HttpServer and infrastructure it is given. */
export const AppLive = HttpApiBuilder.serve().pipe(
  // No span per request: this server answers thousands of requests a second.
  HttpMiddleware.withTracerDisabledWhen(() => true),
  Layer.provide(HttpApiScalar.layer({ path: "/v1/docs" })),
  Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/v1/openapi.json" })),
  Layer.provide(ApiLive),
  Layer.provide(BodyLimit),
  Layer.provide(Background)
)

/** node:http on HOST:PORT; POST /v1/delivery/capacity takes the fast lane before the Effect stack. */
export const Listener = Layer.unwrapEffect(
  Effect.gen(function*() {
    const { host, port } = yield* ServerConfig
    const lane = yield* CapacityFastLane
    return NodeHttpServer.layer(createFastLaneServer(lane.take), { port, host })
  })
).pipe(Layer.provide(CapacityService.fastLane))

/** What `npm start` runs: HTTP on HOST:PORT over the infrastructure chosen by configuration. */
export const ServerLive = AppLive.pipe(
  HttpServer.withLogAddress,
  Layer.provide(Listener),
  Layer.provide(Infrastructure)
)
