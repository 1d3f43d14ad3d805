import { isJsonContentType } from "@retail/api"
import { holdsApiKey } from "@retail/auth"
import { CapacityMetrics, HttpMetrics, MetricsConfig } from "@retail/metrics"
import type { IncomingMessage, ServerResponse } from "node:http"
import { Context, Effect, Layer } from "effect"
import { CapacityConfig } from "../CapacityConfig.ts"
import { CapacityNetwork } from "../CapacityNetwork.ts"
import { answerCapacity } from "../CapacityAnswer.ts"
import {
  type Answer,
  INTERNAL,
  UNAUTHORIZED,
  UNSUPPORTED_MEDIA_TYPE
} from "../Answer.ts"
import { meterPlanCache } from "../PlanCacheMetrics.ts"
import { FastLaneLimit } from "./FastLaneLimit.ts"

const PATH = "/v1/delivery/capacity"

const send = (response: ServerResponse, answer: Answer, record: HttpMetrics.RouteRecorder, started: number, ended: number) => {
  record(answer.status, started, ended)
  response.writeHead(answer.status, {
    "content-type": answer.contentType,
    "content-length": Buffer.byteLength(answer.body)
  })
  response.end(answer.body)
}

/**
 * Checkout's hot path on plain node:http, ahead of the Effect HTTP stack (measured here: ~2.4k rps
 * through HttpApi for this request, whose engine work is ~30 µs). Same answer as the HttpApi
 * handler, which stays as the documented endpoint and serves other HttpServer implementations.
 */
export class CapacityFastLane extends Context.Service<CapacityFastLane, {
  /** True when the request was taken (answered or being answered) by the fast lane. */
  readonly take: (request: IncomingMessage, response: ServerResponse) => boolean
}>()("@retail/capacity/CapacityFastLane") {
  static readonly layer = Layer.effect(
    CapacityFastLane,
    Effect.gen(function*() {
      const config = yield* CapacityConfig
      const network = yield* CapacityNetwork
      const limit = yield* FastLaneLimit
      const MAX_BODY_BYTES = config.maxBodyBytes
      // Metrics on this path: three clock reads, a counter increment and two histogram observations,
      // no fiber. With METRICS_ENABLED=false: no-op calls, no clock read.
      const { enabled } = yield* MetricsConfig
      const clock = HttpMetrics.metricsClock(enabled)
      const record = enabled ? HttpMetrics.routeRecorder(PATH, "POST") : HttpMetrics.noRecorder
      const engine = CapacityMetrics.engineSeconds.series({})
      const engineDone = enabled ? (startedAt: number, endedAt: number) => engine.observe((endedAt - startedAt) / 1000) : () => undefined
      if (enabled) yield* meterPlanCache
      /** True when the request was taken (answered or being answered) by the fast lane. */
      const take = (request: IncomingMessage, response: ServerResponse): boolean => {
        if (request.method !== "POST" || (request.url !== PATH && request.url !== `${PATH}/`)) return false
        const started = clock()
        if (!holdsApiKey(config.apiKeys, request.headers.authorization)) {
          request.resume()
          send(response, UNAUTHORIZED, record, started, clock())
          return true
        }
        if (!isJsonContentType(request.headers["content-type"])) {
          request.resume()
          send(response, UNSUPPORTED_MEDIA_TYPE, record, started, clock())
          return true
        }
        if (limit.refused(request, response)) {
          record(429, started, clock())
          return true
        }
        const chunks: Array<Buffer> = []
        let size = 0
        request.on("data", (chunk: Buffer) => {
          size += chunk.length
          if (size <= MAX_BODY_BYTES) chunks.push(chunk)
        })
        request.on("end", () => {
          if (size > MAX_BODY_BYTES) {
            send(response, { status: 413, contentType: "text/plain; charset=utf-8", body: `Payload too large: at most ${MAX_BODY_BYTES} bytes` }, record, started, clock())
            return
          }
          try {
            const body = chunks.length === 1 ? chunks[0]?.toString("utf8") ?? "" : Buffer.concat(chunks).toString("utf8")
            const engineStarted = clock()
            const answer = answerCapacity(config, network.peek(), body, Date.now())
            const engineEnded = clock()
            engineDone(engineStarted, engineEnded)
            send(response, answer, record, started, engineEnded)
          } catch {
            send(response, INTERNAL, record, started, clock())
          }
        })
        request.on("error", () => response.destroy())
        return true
      }
      return CapacityFastLane.of({ take })
    })
  )
}
