import { isJsonContentType } from "@retail/api"
import { holdsApiKey } from "@retail/auth"
import { CapacityMetrics, HttpMetrics, MetricsConfig } from "@retail/metrics"
import type { IncomingMessage, ServerResponse } from "node:http"
import { Context, Effect, Layer } from "effect"
import { CapacityConfig } from "../CapacityConfig.ts"
import { CapacityNetwork } from "../CapacityNetwork.ts"
import { type Answer, bodyTimeout } from "../Answer.ts"
import type { EnginePhases } from "../EnginePhases.ts"
import { meterPlanCache } from "../PlanCacheMetrics.ts"
import { answerRequest, formatOf } from "../RequestAnswer.ts"
import { FastLaneLimit } from "./FastLaneLimit.ts"

const PATH = "/v1/delivery/capacity"

const send = (response: ServerResponse, answer: Answer, record: HttpMetrics.RouteRecorder, started: number, ended: number) => {
  record(answer.status, started, ended)
  response.writeHead(answer.status, answer.retryAfter === undefined
    ? { "content-type": answer.contentType, "content-length": Buffer.byteLength(answer.body) }
    : { "content-type": answer.contentType, "content-length": Buffer.byteLength(answer.body), "retry-after": String(answer.retryAfter) })
  response.end(answer.body)
}

/** A 408 before the body ended: the rest of it is not read, so the connection cannot carry another request. */
const sendAndClose = (request: IncomingMessage, response: ServerResponse, answer: Answer, record: HttpMetrics.RouteRecorder, started: number, ended: number) => {
  record(answer.status, started, ended)
  response.writeHead(answer.status, { "content-type": answer.contentType, "content-length": Buffer.byteLength(answer.body), connection: "close" })
  response.end(answer.body, () => request.destroy())
}

/**
 * Checkout's hot path on plain node:http, ahead of the Effect HTTP stack (measured here: ~2.4k rps
 * through HttpApi for this request, whose engine work is ~30 µs). Same answer as the HttpApi
 * handler, which stays as the documented endpoint and serves other HttpServer implementations.
 *
 * Every error is answered once the body is read (at most CAPACITY_MAX_BODY_BYTES of it kept), in
 * the format of the variant the body reads as: a variant B client gets `{code, message, details}`
 * for its 401, 415, 429 and 413 too (docs/capacity.md, "Telling the variants apart").
 */
export class CapacityFastLane extends Context.Service<CapacityFastLane, {
  /**
   * True when the request was taken (answered or being answered) by the fast lane. `phases`: only
   * for a request whose span is sampled (node:http calls it with two arguments).
   */
  readonly take: (request: IncomingMessage, response: ServerResponse, phases?: EnginePhases) => boolean
}>()("@retail/capacity/CapacityFastLane") {
  static readonly layer = Layer.effect(
    CapacityFastLane,
    Effect.gen(function*() {
      const config = yield* CapacityConfig
      const network = yield* CapacityNetwork
      const limit = yield* FastLaneLimit
      const MAX_BODY_BYTES = config.maxBodyBytes
      const { bodyIdleTimeoutMs: windowMs, bodyMinBytesPerSecond } = config
      /** Bytes a body must gain in each window of the watchdog: at least one (a stalled body), else the minimum rate's share. */
      const leastPerWindow = Math.max(1, Math.ceil(bodyMinBytesPerSecond * windowMs / 1000))
      // Metrics on this path: three clock reads, a counter increment and two histogram observations,
      // no fiber. With METRICS_ENABLED=false: no-op calls, no clock read.
      const { enabled } = yield* MetricsConfig
      const clock = HttpMetrics.metricsClock(enabled)
      const record = enabled ? HttpMetrics.routeRecorder(PATH, "POST") : HttpMetrics.noRecorder
      const engine = CapacityMetrics.engineSeconds.series({})
      const engineDone = enabled ? (startedAt: number, endedAt: number) => engine.observe((endedAt - startedAt) / 1000) : () => undefined
      if (enabled) yield* meterPlanCache
      /** True when the request was taken (answered or being answered) by the fast lane. */
      const take = (request: IncomingMessage, response: ServerResponse, phases?: EnginePhases): boolean => {
        if (request.method !== "POST" || (request.url !== PATH && request.url !== `${PATH}/`)) return false
        const started = clock()
        // Checked in this order before the body is read (an unauthenticated caller takes no token of a
        // key's rate); answered after, in the body's format.
        const authorized = holdsApiKey(config.apiKeys, request.headers.authorization)
        const json = authorized && isJsonContentType(request.headers["content-type"])
        const retryAfter = json ? limit.retryAfter(request) : undefined
        const chunks: Array<Buffer> = []
        let size = 0
        request.on("data", (chunk: Buffer) => {
          const before = size
          size += chunk.length
          if (size <= MAX_BODY_BYTES) chunks.push(chunk)
          // The first MAX_BODY_BYTES of a body too large, for the format of its 413.
          else if (before < MAX_BODY_BYTES) chunks.push(chunk.subarray(0, MAX_BODY_BYTES - before))
        })
        // The watchdog: one timer a request, checked once a window (no work per chunk), cleared at the end.
        let watchdog: NodeJS.Timeout | undefined
        if (windowMs > 0) {
          let sizeAtLastCheck = 0
          watchdog = setTimeout(() => {
            if (size - sizeAtLastCheck >= leastPerWindow) {
              sizeAtLastCheck = size
              watchdog?.refresh()
              return
            }
            request.removeAllListeners("end")
            const partial = chunks.length === 1 ? chunks[0]?.toString("utf8") ?? "" : Buffer.concat(chunks).toString("utf8")
            sendAndClose(request, response, bodyTimeout(formatOf(partial), windowMs, bodyMinBytesPerSecond), record, started, clock())
          }, windowMs)
        }
        request.on("end", () => {
          clearTimeout(watchdog)
          const body = chunks.length === 1 ? chunks[0]?.toString("utf8") ?? "" : Buffer.concat(chunks).toString("utf8")
          const engineStarted = clock()
          const answer = answerRequest(config, network.peek(), { authorized, json, retryAfter }, body, size > MAX_BODY_BYTES, Date.now(), phases)
          phases?.mark("answered")
          const engineEnded = clock()
          // Engine time only for bodies that reached the engine (refusals are answered without it).
          if (retryAfter === undefined && json && size <= MAX_BODY_BYTES) engineDone(engineStarted, engineEnded)
          send(response, answer, record, started, engineEnded)
        })
        request.on("error", () => {
          clearTimeout(watchdog)
          response.destroy()
        })
        return true
      }
      return CapacityFastLane.of({ take })
    })
  )
}
