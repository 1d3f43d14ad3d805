import { BodyTimeoutAnswer, type BodyTimeoutSlot, requestTimeoutMessage } from "@retail/api"
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { IncomingMessage } from "node:http"
import { type BodyRule, type BodySample, type BodyVerdict, makeBodyProgress } from "./BodyProgress.ts"
import { ServerConfig } from "./ServerConfig.ts"
import { hasBody } from "./RequestBody.ts"

const sampleOf = (request: IncomingMessage, now: number, loopLagged: boolean): BodySample => {
  const socket = request.socket
  return {
    now,
    bytesRead: socket.bytesRead,
    // Paused by a pipe whose destination is full, node stopped reading the socket because the
    // request's buffer is full, or the event loop was blocked (timers run before the socket reads
    // that waited): the server is behind, not the client. A reader that pulls on 'readable' (an
    // Effect Stream of the body, as POST /v1/delivery/capacity's HttpApi route reads it) leaves the
    // request "paused" while it keeps up: only its full buffer says it is behind.
    serverBusy: loopLagged || (request.isPaused() && request.listenerCount("readable") === 0) ||
      request.readableLength >= request.readableHighWaterMark || socket.isPaused()
  }
}

/** RequestTimeout's error body, the spec's ErrorMessage `{"message":...}` as the API encodes its errors. */
const answer = (verdict: Exclude<BodyVerdict, "receiving">, rule: BodyRule) =>
  HttpServerResponse.jsonUnsafe(
    { message: requestTimeoutMessage(verdict, rule.idleTimeoutMs, rule.minBytesPerSecond) },
    { status: 408 }
  )

/**
 * The framework's body reader (request.arrayBuffer / text, which the JSON endpoints use) destroys the
 * request when its fiber is interrupted, and node destroys the socket with an incomplete request:
 * the 408 was logged but the client saw the connection cut. Once the 408 is decided, destroying the
 * request only stops reading it; the answer then closes the connection (EarlyAnswerResponse).
 */
const keepSocketForAnswer = (request: IncomingMessage): void => {
  request.destroy = () => {
    request.pause()
    return request
  }
}

/**
 * Completes with a 408 once the client stalls or is too slow, never while the body keeps coming;
 * looks every tenth of the idle timeout (at most each second), and stops looking once the body
 * has been received whole. No listener is added to the request (a 'data' listener would switch
 * it to flowing mode under the handler's reader).
 */
const stall = (request: IncomingMessage, rule: BodyRule, routeAnswer: () => HttpServerResponse.HttpServerResponse | undefined) =>
  Effect.callback<HttpServerResponse.HttpServerResponse>((resume) => {
    const periodMs = Math.max(20, Math.min(1000, rule.idleTimeoutMs / 10))
    let lookedAt = Date.now()
    const judge = makeBodyProgress(rule, sampleOf(request, lookedAt, false))
    const timer = setInterval(() => {
      if (request.complete || request.socket.destroyed) return clearInterval(timer)
      const now = Date.now()
      const verdict = judge(sampleOf(request, now, now - lookedAt > 2 * periodMs))
      lookedAt = now
      if (verdict === "receiving") return
      clearInterval(timer)
      keepSocketForAnswer(request)
      resume(Effect.as(Effect.logWarning(`${request.method} ${request.url}: request body ${verdict}, answered 408`), routeAnswer() ?? answer(verdict, rule)))
    }, periodMs)
    return Effect.sync(() => clearInterval(timer))
  })

/**
 * Ends a request whose body stalls (UPLOAD_IDLE_TIMEOUT_MS) or trickles
 * (UPLOAD_MIN_BYTES_PER_SECOND): its handler is interrupted, which frees what it holds (a file
 * load's slot, its spool) before the 408 is written; the answer closes the connection
 * (EarlyAnswerResponse). It replaces node's total requestTimeout, which cut long uploads that were
 * still progressing. Armed only for requests with a body still to be received: the others (and the
 * capacity fast lane, which never reaches the Effect stack) pay a header check.
 */
export const watchBody = (rule: BodyRule) =>
<E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
  rule.idleTimeoutMs === 0 ? app : Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const source = request.source
    if (!(source instanceof IncomingMessage) || source.complete || !hasBody(source)) return app
    // The request's fiber is uninterruptible (but in the route handlers), and the race runs the app
    // in a fiber of its own: the wait for the race must be interruptible too, or a shutdown or a
    // client gone would let the handler run to its end instead of cutting it off. The watch is made
    // interruptible so that the race can stop it once the app has answered. A route may give its
    // own 408 (BodyTimeoutAnswer), built when the body is judged, from what it has read by then.
    let routeAnswer: (() => HttpServerResponse.HttpServerResponse) | undefined
    const slot: BodyTimeoutSlot = { set: (answer) => void (routeAnswer = answer) }
    return Effect.interruptible(Effect.raceFirst(
      Effect.provideService(app, BodyTimeoutAnswer, slot),
      Effect.interruptible(stall(source, rule, () => routeAnswer?.()))
    ))
  })

/**
 * watchBody as a global router middleware (UPLOAD_IDLE_TIMEOUT_MS, UPLOAD_MIN_BYTES_PER_SECOND). At
 * this level the response is still a value: a listener-level middleware wraps an app that has already
 * written its answer, and an interrupted handler there writes a 503 of its own.
 */
export const BodyWatchdog = HttpRouter.middleware(
  Effect.map(ServerConfig, (config) => watchBody({ idleTimeoutMs: config.uploadIdleTimeoutMs, minBytesPerSecond: config.uploadMinBytesPerSecond })),
  { global: true }
)
