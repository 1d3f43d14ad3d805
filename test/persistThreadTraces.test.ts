import { describe, expect, layer } from "@effect/vitest"
import { TracingLive } from "@retail/service-server"
import { type OtlpSink, sampleProducts, startOtlpSink } from "@retail/testkit"
import { ConfigProvider, Context, Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"
import { eventually, request } from "./support/Http.ts"
import { type LoadBody, loadView } from "./support/Loads.ts"
import { mintToken, TestServer } from "./support/TestServer.ts"

class Sink extends Context.Service<Sink, OtlpSink>()("test/OtlpSink") {}

/**
 * The server as it runs by default (the batch workers on a thread of their own, PERSIST_THREAD),
 * exporting to an OTLP receiver; new traces not sampled, so that only a request that asks for its
 * trace (a sampled `traceparent`) is exported.
 */
const TracedServer = Layer.unwrap(Effect.gen(function*() {
  const sink = yield* Sink
  const settings = { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_TRACES_SAMPLER: "parentbased_always_off", PRODUCT_BATCH_SIZE: "50" }
  return TestServer(settings).pipe(Layer.provideMerge(TracingLive.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(settings))))))
})).pipe(Layer.provideMerge(Layer.effect(Sink, Effect.acquireRelease(Effect.promise(startOtlpSink), (sink) => Effect.promise(sink.close)))))

describe("traces of a load persisted on the batch workers' thread (the default)", () => {
  layer(TracedServer, { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("the thread exports its consume and persist spans into the request's trace, beside the request's own span", () =>
      Effect.gen(function*() {
        const sink = yield* Sink
        const traceId = randomBytes(16).toString("hex")
        const token = yield* mintToken({ scope: "products:write products:read", company: "ACME" })
        const products = sampleProducts(120, { prefix: `TT-${traceId.slice(0, 8)}-` })
        const response = yield* request("/v1/load-products", {
          body: JSON.stringify({ products }),
          headers: { "content-type": "application/json", traceparent: `00-${traceId}-${randomBytes(8).toString("hex")}-01` },
          token
        })
        expect(response.status, response.text).toBe(200)
        const { processCode } = response.json() as LoadBody
        yield* eventually(loadView(processCode, token), (view) => view.status === "COMPLETED")
        const names = yield* eventually(
          Effect.sync(() => sink.spanNames(traceId)),
          (names) => names.filter((name) => name === "batch.persist").length >= 3 && names.includes("POST /v1/load-products")
        )
        // 120 products in batches of 50: three entries, each consumed and persisted on the thread.
        expect(names.filter((name) => name === "batch.persist")).toHaveLength(3)
        expect(names.filter((name) => name === "batch.consume")).toHaveLength(3)
        // Nothing else was sampled: the sink holds this trace alone.
        expect([...sink.traceIds()]).toEqual([traceId])
      }))
  })
})
