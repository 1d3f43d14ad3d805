import { Layer } from "effect"
import { CapacityConfig } from "./CapacityConfig.ts"
import { CapacityEvents } from "./CapacityEvents.ts"
import { CapacityNetwork } from "./CapacityNetwork.ts"
import { StockConfig } from "./stock/StockConfig.ts"
import { StockEvents } from "./stock/StockEvents.ts"
import { StockReplica } from "./stock/StockReplica.ts"
import { UsageReconciler } from "./UsageReconciler.ts"

/**
 * This process's replica of the network, its usage and its stock, with the events that keep them
 * current and the reconcilers that catch lost ones; needs CapacityRepository, StockRepository and StreamQueue. Layers are
 * shared by reference within one build: every handler that provides this one gets the same
 * replica (one config, so one generated key).
 */
export const NetworkReplica = UsageReconciler.pipe(
  Layer.provideMerge(CapacityNetwork.layer),
  Layer.provideMerge(StockReplica.layer),
  Layer.provide([CapacityEvents.layer, StockEvents.layer]),
  Layer.provide(StockConfig.layer),
  Layer.provideMerge(CapacityConfig.layer)
)
