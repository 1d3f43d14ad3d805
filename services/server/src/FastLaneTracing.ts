import { QueueTracing } from "@retail/queue"
import { Context, Effect, Exit, Option } from "effect"
import type { Lane } from "./FastLaneServer.ts"
import { type TraceSampling as Sampling, TraceSampling } from "./Tracing.ts"

const PATH = "/v1/delivery/capacity"

const nowNanos = (): bigint => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1_000_000))

/**
 * The fast lane answers outside Effect's runtime, so its span is made here by hand: sampled first
 * (parent-based, from the request's `traceparent`), and only a sampled request pays for a span.
 * One server span per request, with the phases as events: the body received (the engine starts),
 * the answer written.
 */
export const tracedLane = (lane: Lane, sampling: Sampling): Lane => (request, response) => {
  if (request.method !== "POST" || (request.url !== PATH && request.url !== `${PATH}/`)) return lane(request, response)
  const header = request.headers["traceparent"]
  const parent = Option.fromUndefinedOr(typeof header === "string" ? QueueTracing.parseTraceparent(header) : undefined)
  if (!sampling.sample(parent)) return lane(request, response)
  const span = sampling.exporting.span({
    name: `POST ${PATH}`,
    parent,
    annotations: Context.empty(),
    links: [],
    startTime: nowNanos(),
    kind: "server",
    root: Option.isNone(parent),
    sampled: true
  })
  span.attribute("http.request.method", "POST")
  span.attribute("url.path", PATH)
  span.attribute("capacity.lane", "fast")
  request.once("end", () => span.event("request.body.received", nowNanos()))
  response.once("close", () => {
    span.attribute("http.response.status_code", response.statusCode)
    span.event("response.sent", nowNanos())
    span.end(nowNanos(), response.statusCode >= 500 ? Exit.fail(`HTTP ${response.statusCode}`) : Exit.void)
  })
  return lane(request, response)
}

/** The lane as it is while tracing is off (nothing added to its path), traced while it is on. */
export const laneTracing = Effect.map(Effect.service(TraceSampling), (sampling) => (lane: Lane): Lane =>
  sampling === undefined ? lane : tracedLane(lane, sampling))
