// Serving an in-tree Effect 4 candidate (capacityRouter.ts, capacityApi.ts) on node:http, as
// benchmarks/src/suite/Effect4.ts expects: HOST/PORT from the environment (PORT=0: a free port), one
// line `listening <port>` on stdout once bound, SIGTERM closes.
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import { createServer } from "node:http"

const ServerLive = NodeHttpServer.layer(createServer, {
  host: process.env["HOST"] ?? "127.0.0.1",
  port: Number(process.env["PORT"] ?? "0")
})

const Announce = Layer.effectDiscard(Effect.gen(function*() {
  const server = yield* HttpServer.HttpServer
  const address = server.address
  console.log(`listening ${"port" in address ? address.port : 0}`)
}))

/** Runs `app` (a layer built with HttpRouter.serve) until SIGTERM/SIGINT. */
export const listen = <E>(app: Layer.Layer<never, E, Layer.Success<typeof ServerLive>>): void =>
  Layer.launch(Layer.merge(app, Announce).pipe(Layer.provide(ServerLive))).pipe(NodeRuntime.runMain)
