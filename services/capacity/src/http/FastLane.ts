import type { Answer, EnginePhases } from "@retail/capacity-wire"
import { HttpMetrics, MetricsConfig } from "@retail/metrics"
import type { IncomingMessage, ServerResponse } from "node:http"
import { Context, Effect, Layer } from "effect"
import type { CapacityRequest } from "../answer/AnswerCapacityRequest.ts"
import { DeliveryCapacityAnswers } from "../answer/DeliveryCapacityAnswers.ts"
import { RequestBody } from "../answer/RequestBody.ts"
import { OrdersLane } from "./OrdersLane.ts"

const PATH = "/v1/delivery/capacity"

const send = (response: ServerResponse, answer: Answer) => {
  response.writeHead(answer.status, answer.retryAfter === undefined
    ? { "content-type": answer.contentType, "content-length": answer.body.byteLength }
    : { "content-type": answer.contentType, "content-length": answer.body.byteLength, "retry-after": String(answer.retryAfter) })
  response.end(answer.body)
}

/** A 408 before the body ended: the rest of it is not read, so the connection cannot carry another request. */
const sendAndClose = (request: IncomingMessage, response: ServerResponse, answer: Answer) => {
  response.writeHead(answer.status, { "content-type": answer.contentType, "content-length": answer.body.byteLength, connection: "close" })
  response.end(answer.body, () => request.destroy())
}

/**
 * Checkout's hot path on plain node:http, ahead of the Effect HTTP stack (measured here: ~2.4k rps
 * through HttpApi for this request, whose engine work is ~30 µs). An adapter: it reads the body
 * (RequestBody.ts) under its watchdog and writes what DeliveryCapacityAnswers answers, the answer
 * the HttpApi route (DeliveryCapacityHttp.ts) gives too, byte for byte.
 */
export class CapacityFastLane extends Context.Service<CapacityFastLane, {
  /**
   * True when the request was taken (answered or being answered) by the fast lane: POST
   * /v1/delivery/capacity, or a consumption OrdersLane takes. `phases`: only for a request whose
   * span is sampled (node:http calls it with two arguments).
   */
  readonly take: (request: IncomingMessage, response: ServerResponse, phases?: EnginePhases) => boolean
}>()("@retail/capacity/CapacityFastLane") {
  static readonly layer = Layer.effect(
    CapacityFastLane,
    Effect.gen(function*() {
      const answers = yield* DeliveryCapacityAnswers
      const orders = yield* OrdersLane
      const { maxBodyBytes, bodyIdleTimeoutMs: windowMs, bodyMinBytesPerSecond } = answers.settings
      /** Bytes a body must gain in each window of the watchdog: at least one (a stalled body), else the minimum rate's share. */
      const leastPerWindow = Math.max(1, Math.ceil(bodyMinBytesPerSecond * windowMs / 1000))
      // The route's metrics: two clock reads, a counter increment and a histogram observation, no
      // fiber (the engine's own are DeliveryCapacityAnswers'). With METRICS_ENABLED=false: no-op calls, no clock read.
      const { enabled } = yield* MetricsConfig
      const clock = HttpMetrics.metricsClock(enabled)
      const record = enabled ? HttpMetrics.routeRecorder(PATH, "POST") : HttpMetrics.noRecorder
      const requestOf = (request: IncomingMessage, body: RequestBody, ended: CapacityRequest["ended"]): CapacityRequest => ({
        authorization: request.headers.authorization,
        contentType: request.headers["content-type"],
        body: body.text(),
        ended
      })
      const take = (request: IncomingMessage, response: ServerResponse, phases?: EnginePhases): boolean => {
        if (request.method !== "POST" || (request.url !== PATH && request.url !== `${PATH}/`)) return orders.take(request, response)
        const started = clock()
        const body = new RequestBody(maxBodyBytes)
        request.on("data", (chunk: Buffer) => body.add(chunk))
        // The watchdog: one timer a request, checked once a window (no work per chunk), cleared at the end.
        let watchdog: NodeJS.Timeout | undefined
        if (windowMs > 0) {
          let sizeAtLastCheck = 0
          watchdog = setTimeout(() => {
            if (body.size - sizeAtLastCheck >= leastPerWindow) {
              sizeAtLastCheck = body.size
              watchdog?.refresh()
              return
            }
            request.removeAllListeners("end")
            const answer = answers.answer(requestOf(request, body, "stalled"))
            record(answer.status, started, clock())
            sendAndClose(request, response, answer)
          }, windowMs)
        }
        request.on("end", () => {
          clearTimeout(watchdog)
          const answer = answers.answer(requestOf(request, body, body.tooLarge ? "tooLarge" : "whole"), phases)
          record(answer.status, started, clock())
          send(response, answer)
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
