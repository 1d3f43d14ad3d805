import { isJsonContentType } from "@retail/api"
import { bearerCredential } from "@retail/auth"
import { CredentialRateLimiter, RateLimiterLive } from "@retail/limits"
import { HttpMetrics, MetricsConfig } from "@retail/metrics"
import { Clock, Context, Effect, Exit, Layer, References } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { answerOrder, type OrderAnswer, type OrderEndpoint, type OrderRequest } from "../answer/AnswerOrder.ts"
import { RequestBody } from "../answer/RequestBody.ts"
import { takeOrder } from "../answer/TakeOrder.ts"
import { CapacityConfig } from "../CapacityConfig.ts"
import { CapacityNetwork } from "../CapacityNetwork.ts"
import { NetworkReplica } from "../NetworkReplica.ts"

const PATH = "/v1/delivery/capacity/consumptions"

const send = (response: ServerResponse, answer: OrderAnswer, close: boolean) => {
  const headers = { "content-type": "application/json", "content-length": Buffer.byteLength(answer.body) }
  response.writeHead(answer.status, close ? { ...headers, connection: "close" } : headers)
  response.end(answer.body)
}

/** What the Effect stack answers when the answer could not be computed (a defect): the contract has no body for it. */
const DEFECT: OrderAnswer = { status: 500, body: JSON.stringify({ message: "The order could not be taken: internal error" }) }

/**
 * POST /v1/delivery/capacity/consumptions on plain node:http, ahead of the Effect HTTP stack (a
 * request through HttpApi allocates about 115 KB before its handler runs; docs/capacity.md, "Orders
 * at scale"). It takes only a request whose headers the stack would pass: a known API key (Bearer)
 * with a token of its rate, a JSON media type, a Content-Length within REQUEST_MAX_BYTES. Anything
 * else (401, 415, 429, 413 by length, a chunked body) is left to the stack, which answers it as it
 * always did. A request it takes is answered by answerOrder (AnswerOrder.ts) over takeOrder, the
 * function the HttpApi handler runs, under a body watchdog of UPLOAD_IDLE_TIMEOUT_MS windows. With
 * tracing on it takes nothing: the stack's request spans are what a trace of an order starts from.
 */
export class OrdersLane extends Context.Service<OrdersLane, {
  /** True when the request was taken (answered or being answered) by this lane. */
  readonly take: (request: IncomingMessage, response: ServerResponse) => boolean
}>()("@retail/capacity/OrdersLane") {
  static readonly layer = Layer.effect(
    OrdersLane,
    Effect.gen(function*() {
      const settings = yield* CapacityConfig
      const network = yield* CapacityNetwork
      const limiter = yield* CredentialRateLimiter
      const clock = yield* Clock.Clock
      // With tracing on, a consumption keeps the request span the Effect stack gives it, its SQL under it (docs/observability.md).
      const tracing = yield* References.TracerEnabled
      const run = Effect.runCallbackWith(yield* Effect.context<never>())
      const { requestMaxBytes, bodyIdleTimeoutMs: windowMs, bodyMinBytesPerSecond } = settings
      const endpoint: OrderEndpoint = {
        requestMaxValues: settings.requestMaxValues,
        bodyIdleTimeoutMs: windowMs,
        bodyMinBytesPerSecond,
        take: (order) => takeOrder(network, order)
      }
      /** Bytes a body must gain in each window of the watchdog: at least one (else it stopped), else the minimum rate's share. */
      const leastPerWindow = Math.max(1, Math.ceil(bodyMinBytesPerSecond * windowMs / 1000))
      const { enabled } = yield* MetricsConfig
      const metricsClock = HttpMetrics.metricsClock(enabled)
      const record = enabled ? HttpMetrics.routeRecorder(PATH, "POST") : HttpMetrics.noRecorder

      const answer = (request: OrderRequest, onAnswer: (answer: OrderAnswer) => void) =>
        run(answerOrder(endpoint, request), {
          onExit: (exit) => {
            if (Exit.isSuccess(exit)) {
              if (exit.value.status >= 500) run(Effect.logError(`POST ${PATH} answered ${exit.value.status}: ${exit.value.body}`))
              return onAnswer(exit.value)
            }
            run(Effect.logError(`POST ${PATH} answered 500`, exit.cause))
            onAnswer(DEFECT)
          }
        })

      const take = (request: IncomingMessage, response: ServerResponse): boolean => {
        if (tracing || request.method !== "POST" || request.url !== PATH) return false
        const headers = request.headers
        const key = bearerCredential(headers.authorization)
        if (key === undefined || !settings.apiKeys.has(key) || !isJsonContentType(headers["content-type"])) return false
        // Number(undefined) is NaN: a body without a length (chunked) is the stack's.
        if (!(Number(headers["content-length"]) <= requestMaxBytes)) return false
        // Refused, no token is taken: the stack takes its own and answers the 429.
        if (limiter.takeAt("apiKey", key, clock.currentTimeMillisUnsafe()) !== undefined) return false
        const started = metricsClock()
        const body = new RequestBody(requestMaxBytes)
        request.on("data", (chunk: Buffer) => body.add(chunk))
        let watchdog: NodeJS.Timeout | undefined
        if (windowMs > 0) {
          let sizeAtLastCheck = 0
          watchdog = setTimeout(() => {
            const gained = body.size - sizeAtLastCheck
            if (gained >= leastPerWindow) {
              sizeAtLastCheck = body.size
              watchdog?.refresh()
              return
            }
            // The rest of the body is not read: the answer closes the connection.
            request.removeAllListeners("end")
            request.pause()
            answer({ body: "", ended: gained === 0 ? "idle" : "tooSlow" }, (stalled) => {
              record(stalled.status, started, metricsClock())
              send(response, stalled, true)
            })
          }, windowMs)
        }
        request.on("end", () => {
          clearTimeout(watchdog)
          answer({ body: body.text(), ended: "whole" }, (taken) => {
            record(taken.status, started, metricsClock())
            send(response, taken, false)
          })
        })
        request.on("error", () => {
          clearTimeout(watchdog)
          response.destroy()
        })
        return true
      }
      return OrdersLane.of({ take })
    })
  )

  /** With what it needs, shared by reference: the replica and the API-key buckets are those of the other routes of the build. */
  static readonly live = OrdersLane.layer.pipe(Layer.provide([NetworkReplica, RateLimiterLive]))
}
