import { number } from "@retail/config"
import { Config, Context, Effect, Layer, Option, References, Tracer } from "effect"
import { FetchHttpClient } from "effect/http"
import { OtlpExporter, OtlpSerialization, OtlpTracer } from "effect/observability"

/** The samplers of OTEL_TRACES_SAMPLER this server honours; all are parent-based in effect (see docs/observability.md). */
const SAMPLERS = ["parentbased_traceidratio", "traceidratio", "parentbased_always_on", "always_on", "parentbased_always_off", "always_off"] as const

/** Tracing settings, from the OpenTelemetry SDK's own variables (documented in README.md). */
export const TracingConfig = Config.all({
  /** Unset: no tracing at all (the tracer stays off, as it costs 10-20% of a SQL client's CPU). */
  endpoint: Config.option(Config.String("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")).pipe(Config.map(Option.filter((url) => url !== ""))),
  baseEndpoint: Config.option(Config.String("OTEL_EXPORTER_OTLP_ENDPOINT")).pipe(Config.map(Option.filter((url) => url !== ""))),
  sampler: Config.Literals(SAMPLERS, "OTEL_TRACES_SAMPLER").pipe(Config.withDefault("parentbased_traceidratio" as const)),
  ratio: number("OTEL_TRACES_SAMPLER_ARG", 0.01, { min: 0, max: 1, note: "the share of new traces kept" }),
  serviceName: Config.String("OTEL_SERVICE_NAME").pipe(Config.withDefault("retail-logistics")),
  /** `key=value,key2=value2`, values URI-encoded (the SDK's form): a vendor's API key, for instance. */
  headers: Config.String("OTEL_EXPORTER_OTLP_HEADERS").pipe(Config.withDefault(""))
})

const decodedOr = (value: string): string => {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

/** The headers of OTEL_EXPORTER_OTLP_HEADERS; a pair without `=` is skipped. */
export const parseHeaders = (text: string): Record<string, string> => {
  const headers: Record<string, string> = {}
  for (const pair of text.split(",")) {
    const at = pair.indexOf("=")
    if (at <= 0) continue
    const value = pair.slice(at + 1).trim()
    headers[pair.slice(0, at).trim().toLowerCase()] = decodedOr(value)
  }
  return headers
}

/** The traces URL: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, or OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`. */
export const tracesUrl = (config: { readonly endpoint: Option.Option<string>; readonly baseEndpoint: Option.Option<string> }) =>
  Option.orElse(config.endpoint, () => Option.map(config.baseEndpoint, (base) => `${base.replace(/\/+$/, "")}/v1/traces`))

/** The share of new traces kept, from the sampler's name and argument. */
export const ratioOf = (sampler: typeof SAMPLERS[number], ratio: number): number =>
  sampler.endsWith("always_on") ? 1 : sampler.endsWith("always_off") ? 0 : ratio

/**
 * Sampling, as the tracing layer set it up: read by code that makes spans without Effect's tracer
 * (the capacity fast lane) and by the request-span switch. Undefined while tracing is off.
 */
export interface TraceSampling {
  /** Parent-based: a child follows its parent's decision, a new trace is kept with probability `ratio`. */
  readonly sample: (parent: Option.Option<Tracer.AnySpan>) => boolean
  /** The exporting tracer, which makes a span without sampling it again. */
  readonly exporting: Tracer.Tracer
}

export const TraceSampling = Context.Reference<TraceSampling | undefined>("@retail/server/TraceSampling", {
  defaultValue: () => undefined
})

const randomHex = (length: number) => {
  let out = ""
  while (out.length < length) out += Math.floor(Math.random() * 0x100000000).toString(16).padStart(8, "0")
  return out.slice(0, length)
}

const NO_ATTRIBUTES = new Map<string, unknown>()
const NO_LINKS: Array<Tracer.SpanLink> = []

/**
 * A span not sampled: nothing recorded, nothing exported, ids made only if something asks (a stream
 * entry carries its context, flags 00, so that its consumer keeps the decision).
 */
class UnsampledSpan implements Tracer.Span {
  readonly _tag = "Span"
  readonly sampled = false
  // Shared and never written: attribute() and addLinks() do nothing.
  readonly attributes = NO_ATTRIBUTES
  readonly links = NO_LINKS
  readonly name: string
  readonly parent: Option.Option<Tracer.AnySpan>
  readonly annotations: Context.Context<never>
  readonly kind: Tracer.SpanKind
  status: Tracer.SpanStatus
  private ids: { traceId: string; spanId: string } | undefined
  constructor(options: Parameters<Tracer.Tracer["span"]>[0]) {
    this.name = options.name
    this.parent = options.parent
    this.annotations = options.annotations
    this.kind = options.kind
    this.status = { _tag: "Started", startTime: options.startTime }
  }
  get traceId(): string {
    this.ids ??= { traceId: Option.isSome(this.parent) ? this.parent.value.traceId : randomHex(32), spanId: randomHex(16) }
    return this.ids.traceId
  }
  get spanId(): string {
    this.ids ??= { traceId: Option.isSome(this.parent) ? this.parent.value.traceId : randomHex(32), spanId: randomHex(16) }
    return this.ids.spanId
  }
  end(): void {}
  attribute(): void {}
  event(): void {}
  addLinks(): void {}
}

/** Parent-based ratio sampling in front of `exporting`: spans not sampled never reach it. */
export const sampling = (exporting: Tracer.Tracer, ratio: number, random: () => number = Math.random): TraceSampling & { readonly tracer: Tracer.Tracer } => {
  const sample = (parent: Option.Option<Tracer.AnySpan>) => Option.isSome(parent) ? parent.value.sampled : random() < ratio
  return {
    sample,
    exporting,
    tracer: Tracer.make({
      span(options) {
        return options.sampled && sample(options.parent) ? exporting.span(options) : new UnsampledSpan(options)
      },
      ...(exporting.context === undefined ? {} : { context: exporting.context })
    })
  }
}

/** Effect's tracer on, through `exporting` behind the sampler; request spans on (see NoRequestSpans). */
export const tracingWith = (exporting: Tracer.Tracer, ratio: number, random: () => number = Math.random): Layer.Layer<never> => {
  const { tracer, ...rest } = sampling(exporting, ratio, random)
  return Layer.mergeAll(
    Layer.succeed(Tracer.Tracer, tracer),
    Layer.succeed(References.TracerEnabled, true),
    Layer.succeed(TraceSampling, rest)
  )
}

/**
 * OTLP/HTTP (JSON) traces to OTEL_EXPORTER_OTLP_ENDPOINT, sampled; without an endpoint the tracer
 * is off, which costs nothing: every span Effect would make is its no-op span.
 */
export const TracingLive: Layer.Layer<never, Config.ConfigError> = Layer.unwrap(
  Effect.gen(function*() {
    const config = yield* TracingConfig
    const url = tracesUrl(config)
    if (Option.isNone(url)) return Layer.succeed(References.TracerEnabled, false)
    const ratio = ratioOf(config.sampler, config.ratio)
    yield* Effect.logInfo(`traces: OTLP to ${url.value}, service ${config.serviceName}, ${config.sampler} sampling ${ratio}`)
    const exporting = Layer.unwrap(
      Effect.map(
        OtlpTracer.make({ url: url.value, resource: { serviceName: config.serviceName }, headers: parseHeaders(config.headers) }),
        (tracer) => tracingWith(tracer, ratio)
      )
    )
    return exporting.pipe(
      Layer.provide([OtlpExporter.layerFlusher, OtlpSerialization.layerJson, FetchHttpClient.layer])
    )
  })
)
