import { describe, expect, it, layer } from "@effect/vitest"
import { TraceSampling, TracingLive, loggingWith, tracingWith } from "@retail/service-server"
import { sampleProducts } from "@retail/testkit"
import { ConfigProvider, Effect, Layer, Option, References, Tracer } from "effect"
import { TestConsole } from "effect/testing"
import { eventually, postJson } from "./support/Http.ts"
import { type LoadBody, loadView } from "./support/Loads.ts"
import { mintToken, TestServer } from "./support/TestServer.ts"

/** Every span the exporting tracer was given (the sampled ones), as a test's in-memory exporter. */
const recorded: Array<Tracer.NativeSpan> = []
const recorder = Tracer.make({
  span(options) {
    const span = new Tracer.NativeSpan(options)
    recorded.push(span)
    return span
  }
})
/** What the sampler draws for a new trace: 0 keeps it, 0.99 does not (ratio 0.5). */
let draw = 0

const spansOf = (traceId: string) => recorded.filter((span) => span.traceId === traceId)
const named = (name: string) => (span: Tracer.NativeSpan) => span.name === name
const parentId = (span: Tracer.NativeSpan) => Option.match(span.parent, { onNone: () => undefined, onSome: (parent) => parent.spanId })

const Observed = Layer.mergeAll(tracingWith(recorder, 0.5, () => draw), loggingWith("json", "Info"), TestConsole.layer)

const loadOf = (prefix: string, count: number) =>
  Effect.gen(function*() {
    const token = yield* mintToken({ scope: "products:write products:read", company: "ACME" })
    const response = yield* postJson("/v1/load-products", { products: sampleProducts(count, { prefix }) }, token)
    expect(response.status, response.text).toBe(200)
    const { processCode } = response.json() as LoadBody
    yield* eventually(loadView(processCode, token), (view) => view.status === "COMPLETED")
    return processCode
  })

describe("observability", () => {
  layer(TestServer({ PRODUCT_BATCH_SIZE: "50" }).pipe(Layer.provideMerge(Observed)), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("a sampled load is one trace: request, publish, then per stream entry consume and persist, linked through the entry", () =>
      Effect.gen(function*() {
        draw = 0
        const processCode = yield* loadOf(`TR-${crypto.randomUUID().slice(0, 8)}-`, 120)
        const request = recorded.find((span) => span.name === "POST /v1/load-products" && span.kind === "server")
        expect(request, recorded.map((span) => span.name).join(", ")).toBeDefined()
        const trace = yield* eventually(
          Effect.sync(() => spansOf(request!.traceId)),
          (spans) => spans.filter(named("batch.persist")).filter((span) => span.status._tag === "Ended").length === 3
        )
        const publish = trace.filter(named("queue.publish"))
        expect(publish).toHaveLength(1)
        expect(publish[0]!.kind).toBe("producer")
        const consumes = trace.filter(named("batch.consume"))
        expect(consumes).toHaveLength(3)
        for (const consume of consumes) {
          expect(consume.kind).toBe("consumer")
          // Its parent is the span the stream entry names: the publish span, in another fiber's hands.
          expect(consume.parent.pipe(Option.map((parent) => parent._tag))).toEqual(Option.some("ExternalSpan"))
          expect(parentId(consume)).toBe(publish[0]!.spanId)
        }
        const persists = trace.filter(named("batch.persist"))
        expect(persists.map((span) => span.attributes.get("processCode"))).toEqual([processCode, processCode, processCode])
        expect(new Set(persists.map(parentId))).toEqual(new Set(consumes.map((span) => span.spanId)))
        expect(trace.every((span) => span.sampled)).toBe(true)
      }))

    it.effect("a load not sampled records no span, and its consumers keep that decision from the entry", () =>
      Effect.gen(function*() {
        draw = 0.99
        const before = recorded.length
        yield* loadOf(`TU-${crypto.randomUUID().slice(0, 8)}-`, 60)
        const since = recorded.slice(before)
        expect(since.filter((span) => ["POST /v1/load-products", "queue.publish", "batch.consume", "batch.persist"].includes(span.name))).toEqual([])
      }))

    it.effect("LOG_FORMAT=json: each line is a JSON object, and a load's status changes carry its processCode and counts", () =>
      Effect.gen(function*() {
        draw = 0.99
        const processCode = yield* loadOf(`TL-${crypto.randomUUID().slice(0, 8)}-`, 60)
        const lines = (yield* TestConsole.logLines).map((line) => String(line))
        const entries = lines.map((line) => JSON.parse(line) as { level: string; message: string; annotations: Record<string, unknown> })
        const changes = entries.filter((entry) => entry.annotations["event"] === "load.status" && entry.annotations["processCode"] === processCode)
        expect(changes.map((entry) => [entry.annotations["previousStatus"], entry.annotations["status"]])).toEqual([
          ["", "RECEIVED"],
          ["RECEIVED", "PROCESSING"],
          ["PROCESSING", "COMPLETED"]
        ])
        expect(changes[2]!.level).toBe("INFO")
        expect(changes[2]!.annotations).toMatchObject({ company: "ACME", received: 60, accepted: 60, persisted: 60, failed: 0 })
        expect(typeof changes[2]!.annotations["durationMs"]).toBe("number")
      }))
  })

  it.effect("without OTEL_EXPORTER_OTLP_ENDPOINT the tracer is off and nothing samples", () =>
    Effect.gen(function*() {
      const [enabled, sampling] = yield* Effect.all([Effect.service(References.TracerEnabled), Effect.service(TraceSampling)]).pipe(
        Effect.provide(TracingLive.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({})))))
      )
      expect(enabled).toBe(false)
      expect(sampling).toBeUndefined()
    }))
})
