import { MetricsConfig } from "@retail/metrics"
import { Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import { NetAddress } from "effect/net"
import { InternalAddress } from "./InternalServer.ts"

/** An address a browser on this host can open: the unspecified address means every interface, localhost among them. */
const openable = (address: NetAddress.SocketAddress): string =>
  address._tag === "UnixPathAddress"
    ? `unix:${address.path}`
    : NetAddress.formatUrlUnsafe(address, "http").replace(/^http:\/\/(0\.0\.0\.0|\[::\])(?=:)/, "http://localhost")

/**
 * After "Listening on …" (kept as it was: scripts and tests wait for it), where an operator finds the
 * rest: the API reference, the metrics (internal listener), and where the development credentials are.
 */
const logWhereToLook = Effect.gen(function*() {
  const server = yield* HttpServer.HttpServer
  const internal = yield* InternalAddress
  // Read once before: a bad METRICS_ENABLED fails the start elsewhere, so here it is only a hint.
  const metrics = yield* MetricsConfig.pipe(Effect.orElseSucceed(() => ({ enabled: true, public: false })))
  yield* HttpServer.logAddress
  const docs = `${openable(server.address)}/v1/docs`
  const scrape = metrics.enabled
    ? `${openable(internal)}/metrics` + (metrics.public ? ` and ${openable(server.address)}/metrics` : "")
    : "off (METRICS_ENABLED=false)"
  yield* Effect.logInfo(`API docs: ${docs} (OpenAPI: /v1/openapi.json); metrics: ${scrape}${metrics.enabled ? " (Prometheus text)" : ""}`)
    .pipe(Effect.annotateLogs({ docs, metrics: scrape }))
})

/** HttpServer.withLogAddress, and the line after it (see logWhereToLook). */
export const withStartupLog = <A, E, R>(
  layer: Layer.Layer<A, E, R>
): Layer.Layer<A, E, R | Exclude<HttpServer.HttpServer | InternalAddress, A>> =>
  Layer.effectDiscard(logWhereToLook).pipe(Layer.provideMerge(layer))
