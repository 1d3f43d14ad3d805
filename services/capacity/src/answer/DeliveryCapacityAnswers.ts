import type { Answer, EnginePhases } from "@retail/capacity-wire"
import { CredentialRateLimiter, RateLimiterLive } from "@retail/limits"
import { CapacityMetrics, HttpMetrics, MetricsConfig } from "@retail/metrics"
import { Clock, Context, Effect, Layer } from "effect"
import { CapacityConfig, type CapacitySettings } from "../CapacityConfig.ts"
import { CapacityNetwork } from "../CapacityNetwork.ts"
import { CheckoutTraffic } from "./CheckoutTraffic.ts"
import { NetworkReplica } from "../NetworkReplica.ts"
import { meterPlanCache } from "../PlanCacheMetrics.ts"
import { answerCapacityRequest, type CapacityEndpoint, type CapacityRequest } from "./AnswerCapacityRequest.ts"

/**
 * POST /v1/delivery/capacity answered once for both adapters: answerCapacityRequest over this
 * process's settings, network replica, API-key rate (the buckets the administration endpoints
 * draw from too) and clock (Effect's, read once a request: the key's rate and the engine see the
 * same instant).
 */
export class DeliveryCapacityAnswers extends Context.Service<DeliveryCapacityAnswers, {
  readonly answer: (request: CapacityRequest, phases?: EnginePhases) => Answer
  /** CAPACITY_MAX_BODY_BYTES and the body watchdog's settings, for the adapters that read the body. */
  readonly settings: CapacitySettings
}>()("@retail/capacity/DeliveryCapacityAnswers") {
  static readonly layer = Layer.effect(
    DeliveryCapacityAnswers,
    Effect.gen(function*() {
      const settings = yield* CapacityConfig
      const network = yield* CapacityNetwork
      const limiter = yield* CredentialRateLimiter
      const clock = yield* Clock.Clock
      // With METRICS_ENABLED=false: no clock read, a no-op observation.
      const { enabled } = yield* MetricsConfig
      const engineSeconds = CapacityMetrics.engineSeconds.series({})
      if (enabled) yield* meterPlanCache
      const endpoint: CapacityEndpoint = {
        settings,
        snapshot: network.peek,
        takeRate: (key, nowMillis) => limiter.takeAt("apiKey", key, nowMillis),
        engineStarted: HttpMetrics.metricsClock(enabled),
        engineEnded: enabled ? (startedAt) => engineSeconds.observe((performance.now() - startedAt) / 1000) : () => undefined
      }
      return DeliveryCapacityAnswers.of({
        answer: (request, phases) => {
          CheckoutTraffic.taken()
          return answerCapacityRequest(endpoint, request, clock.currentTimeMillisUnsafe(), phases)
        },
        settings
      })
    })
  )
  /** With what it needs, shared by reference: both adapters get one instance per build. */
  static readonly live = DeliveryCapacityAnswers.layer.pipe(Layer.provide([NetworkReplica, RateLimiterLive]))
}
