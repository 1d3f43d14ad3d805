import { describe, expect, it, layer } from "@effect/vitest"
import {
  formatFor,
  laneTracing,
  LoggingConfig,
  LoggingLive,
  logRequestErrors,
  parseHeaders,
  type PhasedLane,
  ratioOf,
  sampling,
  tracedLane,
  TraceSampling,
  TracingLive,
  tracesUrl,
  tracingWith
} from "@retail/service-server"
import { MemoryStreamQueue, QueueTracing, StreamQueue } from "@retail/queue"
import { sampleProducts } from "@retail/testkit"
import { ConfigProvider, Effect, Layer, Logger, Option, References, Tracer } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { TestConsole } from "effect/testing"
import { IncomingMessage, ServerResponse } from "node:http"
import { Socket } from "node:net"
import { eventually, postJson, request } from "./support/Http.ts"
import { type LoadBody, loadView } from "./support/Loads.ts"
import { mintToken, TestServer, TestSettings } from "./support/TestServer.ts"

/** Every span the exporting tracer was given (the sampled ones), as a test's in-memory exporter. */
const recorded: Array<Tracer.NativeSpan> = []
const recorder = Tracer.make({
  span(options) {
    const span = new Tracer.NativeSpan(options)
    recorded.push(span)
    return span
  }
})
/** A variant A item of the demo network (test/capacity.test.ts). */
const DEMO_ITEM = {
  origin: "CD-LURIN", entityType: "CD", skuCode: "SKU-TV-55-4K", zone: "", dispatchType: "NORMAL", quantity: 1, destination: "150122",
  latitude: -12.12, longitude: -77.03, deliveryMode: "HOME_DELIVERY", weight: 2, line: "TV", division: "ELECTRO", measurable: "UN"
}
/** What the sampler draws for a new trace: 0 keeps it, 0.99 does not (ratio 0.5). */
let draw = 0

const spansOf = (traceId: string) => recorded.filter((span) => span.traceId === traceId)
const named = (name: string) => (span: Tracer.NativeSpan) => span.name === name
const parentId = (span: Tracer.NativeSpan) => Option.match(span.parent, { onNone: () => undefined, onSome: (parent) => parent.spanId })

const Logging = LoggingLive.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ LOG_FORMAT: "json", LOG_LEVEL: "info" }))))
const Observed = Layer.mergeAll(tracingWith(recorder, 0.5, () => draw), Logging, TestConsole.layer)

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
  // The recording tracer is this thread's: the workers' spans reach it when they run on the event loop
  // (on their own thread, PERSIST_THREAD's default, they go to that thread's exporter, OTEL_*:
  // persistThreadTraces.test.ts follows them there).
  layer(TestServer({ PRODUCT_BATCH_SIZE: "50", CAPACITY_API_KEYS: "obs-key", PERSIST_THREAD: "false" }).pipe(Layer.provideMerge(Observed)), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("a sampled load is one trace: request, publish, then per stream entry consume and persist, linked through the entry", () =>
      Effect.gen(function*() {
        draw = 0
        const processCode = yield* loadOf(`TR-${crypto.randomUUID().slice(0, 8)}-`, 120)
        const request = recorded.find((span) => span.name === "POST /v1/load-products" && span.kind === "server")
        expect(request, recorded.map((span) => span.name).join(", ")).toBeDefined()
        const trace = yield* eventually(
          Effect.sync(() => spansOf(request!.traceId)),
          (spans) => spans.filter(named("batch.persist")).filter((span) => span.status._tag === "Ended").length >= 3
        )
        const publish = trace.filter(named("queue.publish"))
        expect(publish).toHaveLength(1)
        expect(publish[0]!.kind).toBe("producer")
        // Three entries of 50 products; an entry claimed again (CLAIM_IDLE_MS is 1 s in tests) adds a delivery to the same trace.
        const consumes = trace.filter(named("batch.consume"))
        expect(consumes.length).toBeGreaterThanOrEqual(3)
        expect(new Set(consumes.map((span) => span.attributes.get("messaging.message.id"))).size).toBe(3)
        for (const consume of consumes) {
          expect(consume.kind).toBe("consumer")
          // Its parent is the span the stream entry names: the publish span, in another fiber's hands.
          expect(consume.parent.pipe(Option.map((parent) => parent._tag))).toEqual(Option.some("ExternalSpan"))
          expect(parentId(consume)).toBe(publish[0]!.spanId)
        }
        const persists = trace.filter(named("batch.persist"))
        expect(new Set(persists.map((span) => span.attributes.get("processCode")))).toEqual(new Set([processCode]))
        expect(new Set(persists.map((span) => span.attributes.get("batchNo")))).toEqual(new Set([0, 1, 2]))
        const consumeIds = new Set(consumes.map((span) => span.spanId))
        expect(persists.every((span) => consumeIds.has(parentId(span) ?? ""))).toBe(true)
        expect(trace.every((span) => span.sampled)).toBe(true)
        // The loops that poll (the events relay, the workers' reads) make no traces of their own.
        const events = (yield* TestSettings)["LOAD_EVENTS_STREAM"]
        expect(recorded.filter((span) => span.attributes.get("messaging.destination.name") === events)).toEqual([])
      }))

    it.effect("a load not sampled records no span", () =>
      Effect.gen(function*() {
        draw = 0.99
        const before = recorded.length
        yield* loadOf(`TU-${crypto.randomUUID().slice(0, 8)}-`, 60)
        const batches = (yield* TestSettings)["PRODUCT_BATCHES_STREAM"]
        // The events relay's loop makes traces of its own (its publish included): only the load's spans count here.
        const since = recorded.slice(before).filter((span) =>
          ["POST /v1/load-products", "batch.consume", "batch.persist"].includes(span.name) ||
          (span.name === "queue.publish" && span.attributes.get("messaging.destination.name") === batches)
        )
        expect(since.map((span) => span.name)).toEqual([])
      }))

    it.effect("a capacity request on the fast lane is one server span, sampled before any work, with its events and the phases it reached", () =>
      Effect.gen(function*() {
        const capacity = (headers: Record<string, string>) =>
          request("/v1/delivery/capacity", { body: JSON.stringify({ items: [] }), headers: { "content-type": "application/json", authorization: "Bearer obs-key", ...headers } })
        const lane = () => recorded.filter(named("POST /v1/delivery/capacity"))
        draw = 0.99
        yield* capacity({})
        expect(lane()).toEqual([])
        draw = 0
        const answer = yield* capacity({})
        const [span] = yield* eventually(Effect.sync(lane), (spans) => spans.length === 1 && spans[0]!.status._tag === "Ended")
        expect(span!.kind).toBe("server")
        expect(span!.attributes.get("http.response.status_code")).toBe(answer.status)
        expect(span!.events.map(([name]) => name)).toEqual(["request.body.received", "response.sent"])
        // No items: decoded, then refused by the engine; no answer to encode.
        expect(answer.status).toBeGreaterThanOrEqual(400)
        expect(recorded.filter((child) => parentId(child) === span!.spanId).map((child) => child.name)).toEqual(["capacity.decode", "capacity.evaluate"])
        // A caller's sampled trace is continued whatever the ratio draws.
        draw = 0.99
        yield* capacity({ traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" })
        const continued = yield* eventually(Effect.sync(lane), (spans) => spans.length === 2)
        expect(continued[1]!.traceId).toBe("0af7651916cd43dd8448eb211c80319c")
        expect(parentId(continued[1]!)).toBe("b7ad6b7169203331")
      }))

    it.effect("a sampled capacity request's span holds the engine's phases as child spans, in order, within its time", () =>
      Effect.gen(function*() {
        draw = 0
        const body = { purchaseDate: "2027-03-01", items: [DEMO_ITEM] }
        const answer = yield* request("/v1/delivery/capacity", { body: JSON.stringify(body), headers: { "content-type": "application/json", authorization: "Bearer obs-key" } })
        expect(answer.status, answer.text).toBe(200)
        const isLane = (span: Tracer.NativeSpan) => span.name === "POST /v1/delivery/capacity" && span.attributes.get("http.response.status_code") === 200
        const [span] = yield* eventually(Effect.sync(() => recorded.filter(isLane)), (spans) => spans.length === 1 && spans[0]!.status._tag === "Ended")
        const children = recorded.filter((child) => parentId(child) === span!.spanId)
        expect(children.map((child) => child.name)).toEqual(["capacity.decode", "capacity.evaluate", "capacity.encode"])
        const times = (s: Tracer.NativeSpan) => s.status._tag === "Ended" ? [s.status.startTime, s.status.endTime] as const : [s.status.startTime, -1n] as const
        const [spanStart, spanEnd] = times(span!)
        let previous = spanStart
        for (const child of children) {
          const [start, end] = times(child)
          expect(child.traceId).toBe(span!.traceId)
          expect(child.sampled).toBe(true)
          expect(start).toBeGreaterThanOrEqual(previous)
          expect(end).toBeGreaterThanOrEqual(start)
          previous = end
        }
        expect(previous).toBeLessThanOrEqual(spanEnd)
        // The refused request (401) reached no engine: no phase.
        yield* request("/v1/delivery/capacity", { body: JSON.stringify(body), headers: { "content-type": "application/json", authorization: "Bearer nope" } })
        const refused = yield* eventually(Effect.sync(() => recorded.filter((s) => s.name === "POST /v1/delivery/capacity" && s.attributes.get("http.response.status_code") === 401)), (spans) => spans.length === 1)
        expect(recorded.filter((child) => parentId(child) === refused[0]!.spanId)).toEqual([])
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

  it.effect("an entry published in a span not sampled says so (flags 00), and its consumer's span follows it, whatever it draws", () => {
    const spans: Array<Tracer.NativeSpan> = []
    const exporting = Tracer.make({
      span(options) {
        const span = new Tracer.NativeSpan(options)
        spans.push(span)
        return span
      }
    })
    let drawn = 0.99
    return Effect.gen(function*() {
      const queue = yield* StreamQueue
      yield* queue.ensureGroup("s", "g")
      yield* queue.publish("s", ["batch"]).pipe(Effect.withSpan("request"))
      drawn = 0
      const [delivery] = yield* queue.read("s", "g", "c", { count: 1, blockMs: 0 })
      expect(delivery?.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/)
      const consumed = yield* Effect.currentSpan.pipe(QueueTracing.consumeSpan("batch.consume", "s", delivery!))
      expect(consumed.sampled).toBe(false)
      expect(consumed.traceId).toBe(delivery!.traceparent!.split("-")[1])
      expect(spans).toEqual([])
      // A new trace, drawn under the ratio, is sampled and exported.
      yield* Effect.void.pipe(Effect.withSpan("other"))
      expect(spans.map((span) => span.name)).toEqual(["other"])
    }).pipe(Effect.provide(Layer.mergeAll(QueueTracing.traced(MemoryStreamQueue.layer), tracingWith(exporting, 0.5, () => drawn))))
  })

  it.effect("with the tracer off a publish writes no traceparent into its entries", () =>
    Effect.gen(function*() {
      const queue = yield* StreamQueue
      yield* queue.ensureGroup("s", "g")
      yield* queue.publish("s", ["batch"]).pipe(Effect.withSpan("request"))
      const [delivery] = yield* queue.read("s", "g", "c", { count: 1, blockMs: 0 })
      expect(delivery).toEqual({ id: expect.any(String), payload: "batch", deliveries: 1 })
    }).pipe(Effect.provide(QueueTracing.traced(MemoryStreamQueue.layer)), Effect.provideService(References.TracerEnabled, false)))

  it.effect("request lines: a 5xx at error with its cause, a 4xx at debug, a success not at all", () => {
    const lines: Array<{ level: string; message: unknown; cause: unknown; annotations: Record<string, unknown> }> = []
    const capture = Logger.map(Logger.formatStructured, (entry) => {
      lines.push(entry)
    })
    const answer = (path: string, app: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>) =>
      logRequestErrors(app).pipe(
        Effect.exit,
        Effect.provideService(HttpServerRequest.HttpServerRequest, HttpServerRequest.fromWeb(new Request(`http://localhost${path}?x=1`)))
      )
    return Effect.gen(function*() {
      yield* answer("/ok", Effect.succeed(HttpServerResponse.empty({ status: 200 })))
      yield* answer("/missing", Effect.succeed(HttpServerResponse.empty({ status: 404 })))
      yield* answer("/boom", Effect.die(new Error("the database went away")))
      expect(lines.map((line) => [line.level, line.message, line.annotations["http.status"]])).toEqual([
        ["DEBUG", "GET /missing answered 404", 404],
        ["ERROR", "GET /boom answered 500", 500]
      ])
      expect(String(lines[1]!.cause)).toContain("the database went away")
    }).pipe(Effect.provide(Logger.layer([capture])), Effect.provideService(References.MinimumLogLevel, "Debug"))
  })

  it.effect("LOG_FORMAT unset is pretty on a terminal and logfmt elsewhere; LOG_LEVEL takes either case", () =>
    Effect.gen(function*() {
      expect([formatFor(undefined, true), formatFor(undefined, false), formatFor("json", true)]).toEqual(["pretty", "logfmt", "json"])
      const { level } = yield* LoggingConfig.parse(ConfigProvider.fromUnknown({ LOG_LEVEL: "DEBUG" }))
      expect(level).toBe("Debug")
      const refused = yield* Effect.exit(LoggingConfig.parse(ConfigProvider.fromUnknown({ LOG_LEVEL: "loud" })))
      expect(refused._tag).toBe("Failure")
    }))

  it.effect("the fast lane: the same function with tracing off; not sampled, called as node:http calls it (no phases hook); sampled, with one", () =>
    Effect.gen(function*() {
      const args: Array<number> = []
      const lane: PhasedLane = (...given) => {
        args.push(given.length)
        return true
      }
      expect((yield* laneTracing)(lane)).toBe(lane)
      const own = Tracer.make({ span: (options) => new Tracer.NativeSpan(options) })
      const capacityRequest = () => {
        const incoming = new IncomingMessage(new Socket())
        incoming.method = "POST"
        incoming.url = "/v1/delivery/capacity"
        return [incoming, new ServerResponse(incoming)] as const
      }
      tracedLane(lane, sampling(own, 0.5, () => 0.99))(...capacityRequest())
      tracedLane(lane, sampling(own, 0.5, () => 0))(...capacityRequest())
      expect(args).toEqual([2, 3])
    }))

  it("the OTEL_ variables: the traces URL, the sampler's ratio, the export headers", () => {
    expect(tracesUrl({ endpoint: Option.none(), baseEndpoint: Option.some("http://collector:4318/") })).toEqual(Option.some("http://collector:4318/v1/traces"))
    expect(tracesUrl({ endpoint: Option.some("http://x/traces"), baseEndpoint: Option.some("http://y") })).toEqual(Option.some("http://x/traces"))
    expect([ratioOf("parentbased_traceidratio", 0.2), ratioOf("parentbased_always_on", 0.2), ratioOf("always_off", 0.2)]).toEqual([0.2, 1, 0])
    expect(parseHeaders("api-key=a%20b, X-Team=red,broken")).toEqual({ "api-key": "a b", "x-team": "red" })
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
