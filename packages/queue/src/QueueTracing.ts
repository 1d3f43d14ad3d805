import { Context, Effect, Layer, Option, Tracer } from "effect"
import { type Delivery, StreamQueue, type StreamQueueShape } from "./StreamQueue.ts"

/**
 * The W3C `traceparent` of a span, or undefined for none worth carrying: no span, or the no-op
 * span Effect makes while the tracer is off. A span that is not sampled is carried too (flags 00),
 * so that its consumer does not sample the rest of the trace on its own.
 */
export const traceparentOf = (span: Tracer.AnySpan): string | undefined => {
  if (Context.get(span.annotations, Tracer.DisablePropagation)) return undefined
  return `00-${span.traceId.padStart(32, "0")}-${span.spanId}-${span.sampled ? "01" : "00"}`
}

/** The trace context of the current span, as an entry carries it. */
export const currentTraceparent: Effect.Effect<string | undefined> = Effect.map(
  Effect.serviceOption(Tracer.ParentSpan),
  (span) => (Option.isSome(span) ? traceparentOf(span.value) : undefined)
)

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/

/** The span a W3C `traceparent` names (version 00, ids not all zeros), or undefined. */
export const parseTraceparent = (traceparent: string): Tracer.ExternalSpan | undefined => {
  const match = TRACEPARENT.exec(traceparent)
  if (match === null) return undefined
  const [, traceId = "", spanId = "", flags = "00"] = match
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined
  return Tracer.externalSpan({ traceId, spanId, sampled: (parseInt(flags, 16) & 1) === 1 })
}

/** The publisher's span an entry names, if it carries a valid `traceparent`. */
export const parentOf = (delivery: Delivery): Tracer.ExternalSpan | undefined =>
  delivery.traceparent === undefined ? undefined : parseTraceparent(delivery.traceparent)

/**
 * Runs the handling of a delivery in a consumer span that continues the publisher's trace (the
 * entry's `traceparent`); an entry without one (published before, or with tracing off) starts a trace.
 */
export const consumeSpan = (name: string, stream: string, delivery: Delivery) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, Tracer.ParentSpan>> =>
  Effect.withSpan(effect, name, {
    parent: parentOf(delivery),
    kind: "consumer",
    attributes: {
      "messaging.destination.name": stream,
      "messaging.message.id": delivery.id,
      "messaging.message.delivery_count": delivery.deliveries
    }
  })

/**
 * A queue whose publish is a producer span and writes that span's trace context into each entry
 * it appends (unless the caller gave one), for the consumer to continue the trace with.
 */
export const withTracing = (queue: StreamQueueShape): StreamQueueShape => ({
  ...queue,
  publish: (stream, payloads, options) =>
    Effect.flatMap(currentTraceparent, (traceparent) =>
      queue.publish(stream, payloads, traceparent === undefined || options?.traceparent !== undefined ? options : { ...options, traceparent })
    ).pipe(
      Effect.withSpan("queue.publish", {
        kind: "producer",
        attributes: { "messaging.destination.name": stream, "messaging.batch.message_count": payloads.length }
      })
    )
})

/** The queue `layer` gives, traced (see withTracing). */
export const traced = <E, R>(layer: Layer.Layer<StreamQueue, E, R>): Layer.Layer<StreamQueue, E, R> =>
  Layer.effect(StreamQueue, Effect.map(Effect.service(StreamQueue), withTracing)).pipe(Layer.provide(layer))
