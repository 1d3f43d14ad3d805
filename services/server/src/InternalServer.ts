import { HttpApiBuilder, HttpMiddleware, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { InternalApi } from "@retail/api"
import { InternalFileLoadSlotsLive } from "@retail/limits"
import { UploadService } from "@retail/service-upload"
import { Context, Effect, Layer } from "effect"
import { BodyWatchdog } from "./BodyWatchdog.ts"
import { createGracefulServer } from "./FastLaneServer.ts"
import { trackInFlight } from "./InFlightRequests.ts"
import { ServerConfig } from "./ServerConfig.ts"

/** Where the internal listener is bound (INTERNAL_HOST:INTERNAL_PORT; a port of 0 is resolved here). */
export class InternalAddress extends Context.Tag("@retail/server/InternalAddress")<InternalAddress, HttpServer.Address>() {}

const InternalListener = Layer.unwrapEffect(
  Effect.map(ServerConfig, ({ internalHost, internalPort, shutdownGraceMs }) =>
    NodeHttpServer.layer(createGracefulServer(shutdownGraceMs), { port: internalPort, host: internalHost }))
)

/**
 * Internal loads take slots of their own (INTERNAL_FILE_LOADS_PER_COMPANY): anyone on the host can
 * call this listener without a token, and must not be able to hold a company's public slots.
 */
const InternalApiLive = HttpApiBuilder.api(InternalApi).pipe(
  Layer.provide(UploadService.internalHttp),
  Layer.provide(InternalFileLoadSlotsLive)
)

const address = Layer.effect(
  InternalAddress,
  Effect.gen(function*() {
    const { address } = yield* HttpServer.HttpServer
    const where = address._tag === "TcpAddress" ? `http://${address.hostname}:${address.port}` : address.path
    yield* Effect.logInfo(`Internal endpoints (no authentication: /v1/handle-json-int) on ${where}`)
    return address
  })
)

/**
 * The endpoints without authentication (POST /v1/handle-json-int) on their own listener, which
 * the public port never routes to. `Layer.fresh` gives it its own HttpApi router: shared with the
 * public API's, its routes would be served on the public port too. Infrastructure comes from outside.
 */
export const InternalServerLive = Layer.fresh(
  HttpApiBuilder.serve(trackInFlight).pipe(
    HttpMiddleware.withTracerDisabledWhen(() => true),
    Layer.provide(InternalApiLive),
    Layer.provide(BodyWatchdog),
    Layer.merge(address),
    Layer.provide(InternalListener)
  )
)
