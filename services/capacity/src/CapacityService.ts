import { ApiKeyAuthentication, ApiKeys } from "@retail/auth"
import { RateLimiterLive } from "@retail/limits"
import { Effect, Layer } from "effect"
import { CapacityConfig } from "./CapacityConfig.ts"
import { CapacityEvents } from "./CapacityEvents.ts"
import { CapacityNetwork } from "./CapacityNetwork.ts"
import { CapacityAdminHttp } from "./http/CapacityAdminHttp.ts"
import { DeliveryCapacityHttp } from "./http/DeliveryCapacityHttp.ts"
import { CapacityFastLane } from "./http/FastLane.ts"
import { FastLaneLimit } from "./http/FastLaneLimit.ts"
import { JsonValueLimitLive } from "./http/JsonValueLimitLive.ts"
import { UsageReconciler } from "./UsageReconciler.ts"

// Layers are shared by reference within one build: one config (one generated key), one network.
const network = UsageReconciler.pipe(
  Layer.provideMerge(CapacityNetwork.layer),
  Layer.provide(CapacityEvents.layer),
  Layer.provideMerge(CapacityConfig.layer)
)

/** The capacity endpoints, ready to be added to the HttpApi; needs CapacityRepository and StreamQueue. */
export const http = Layer.mergeAll(DeliveryCapacityHttp, CapacityAdminHttp).pipe(Layer.provide(network))

/** The API-key middleware of the administration endpoints, and the JSON value limit it guards. */
export const authentication = Layer.merge(ApiKeyAuthentication, JsonValueLimitLive).pipe(
  Layer.provide(Layer.effect(ApiKeys, Effect.map(CapacityConfig, (config) => config.apiKeys))),
  Layer.provide([CapacityConfig.layer, RateLimiterLive])
)

/** The node:http fast lane of POST /v1/delivery/capacity; needs CapacityRepository and StreamQueue. */
export const fastLane = CapacityFastLane.layer.pipe(
  Layer.provide(network),
  Layer.provide(FastLaneLimit.layer.pipe(Layer.provide(RateLimiterLive)))
)
