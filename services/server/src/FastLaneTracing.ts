import { QueueTracing } from "@retail/queue"
import type { EnginePhase, EnginePhases } from "@retail/service-capacity"
import { Context, Effect, Exit, Option, type Tracer } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { Lane } from "./FastLaneServer.ts"
import { type TraceSampling as Sampling, TraceSampling } from "./Tracing.ts"

const PATH = "/v1/delivery/capacity"

const nowNanos = (): bigint => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1_000_000))

/** The fast lane as the server hands it over: node:http calls it with two arguments; a sampled request also gets its engine's marks. */
export type PhasedLane = (request: IncomingMessage, response: ServerResponse, phases?: EnginePhases) => boolean

type Marks = ReadonlyArray<readonly [EnginePhase, bigint]>

/**
 * The engine's phases as child spans of the request's, from its marks: decode (JSON.parse and the
 * variant's schema), evaluate (plans and the engine), encode (the answer's text). A refusal (401,
 * 415, 429, 413) never starts the engine and has none; a body the engine stops at (400, 404) ends
 * at its last phase.
 */
const phaseSpans = (sampling: Sampling, parent: Tracer.Span, marks: Marks, ended: bigint): void => {
  const at = (phase: EnginePhase) => marks.find(([mark]) => mark === phase)?.[1]
  const started = at("engine.started")
  if (started === undefined) return
  const answered = at("answered") ?? ended
  const decoded = at("decoded")
  const evaluated = at("evaluated")
  const child = (name: string, startTime: bigint, endTime: bigint) =>
    sampling.exporting.span({
      name,
      parent: Option.some(parent),
      annotations: Context.empty(),
      links: [],
      startTime,
      kind: "internal",
      root: false,
      sampled: true
    }).end(endTime, Exit.void)
  child("capacity.decode", started, decoded ?? answered)
  if (decoded !== undefined) child("capacity.evaluate", decoded, evaluated ?? answered)
  if (evaluated !== undefined) child("capacity.encode", evaluated, answered)
}

/**
 * The fast lane answers outside Effect's runtime, so its span is made here by hand: sampled first
 * (parent-based, from the request's `traceparent`), and only a sampled request pays for a span.
 * One server span per request, with events for the body received and the answer written, and the
 * engine's phases as child spans (marked by the engine through the `EnginePhases` it is handed
 * only here; a request not sampled goes to the lane with two arguments, as with tracing off).
 */
export const tracedLane = (lane: PhasedLane, sampling: Sampling): Lane => (request, response) => {
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
  const marks: Array<readonly [EnginePhase, bigint]> = []
  const phases: EnginePhases = { mark: (phase) => void marks.push([phase, nowNanos()]) }
  request.once("end", () => span.event("request.body.received", nowNanos()))
  response.once("close", () => {
    const ended = nowNanos()
    span.attribute("http.response.status_code", response.statusCode)
    span.event("response.sent", ended)
    phaseSpans(sampling, span, marks, ended)
    span.end(ended, response.statusCode >= 500 ? Exit.fail(`HTTP ${response.statusCode}`) : Exit.void)
  })
  return lane(request, response, phases)
}

/** The lane as it is while tracing is off (the very same function), traced while it is on. */
export const laneTracing = Effect.map(Effect.service(TraceSampling), (sampling) => (lane: PhasedLane): Lane =>
  sampling === undefined ? lane : tracedLane(lane, sampling))
