import { ApiKeyAuthentication, ApiKeys } from "@retail/auth"
import { RateLimiterLive } from "@retail/limits"
import { Effect, Layer } from "effect"
import { DeliveryCapacityAnswers } from "./answer/DeliveryCapacityAnswers.ts"
import { CapacityConfig } from "./CapacityConfig.ts"
import { CapacityHistorySweep } from "./CapacityHistorySweep.ts"
import { CapacityFastLane } from "./http/FastLane.ts"
import { OrdersLane } from "./http/OrdersLane.ts"
import { JsonContentTypeLive } from "./http/JsonContentTypeLive.ts"
import { JsonValueLimitLive } from "./http/JsonValueLimitLive.ts"

// The handlers (DeliveryCapacityHttp, CapacityAdminHttp) each bring the network replica; what the
// server adds beside them is here.

/** The API-key middleware of the administration endpoints, the JSON value limit it guards, and the JSON media type check. */
export const authentication = Layer.mergeAll(ApiKeyAuthentication, JsonValueLimitLive, JsonContentTypeLive).pipe(
  Layer.provide(Layer.effect(ApiKeys, Effect.map(CapacityConfig, (config) => config.apiKeys))),
  Layer.provide([CapacityConfig.layer, RateLimiterLive])
)

/**
 * The node:http fast lane of POST /v1/delivery/capacity, over the answer the HttpApi route gives
 * too, and of the consumptions it can take (OrdersLane); needs CapacityRepository, StockRepository and StreamQueue.
 */
export const fastLane = CapacityFastLane.layer.pipe(Layer.provide([DeliveryCapacityAnswers.live, OrdersLane.live]))

/** The sweep of the capacity store's past (CAPACITY_RETENTION_DAYS); needs CapacityRetention. */
export const historySweep = CapacityHistorySweep.layer.pipe(Layer.provide(CapacityConfig.layer))
