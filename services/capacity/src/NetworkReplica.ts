import { Layer } from "effect"
import { CapacityConfig } from "./CapacityConfig.ts"
import { CapacityEvents } from "./CapacityEvents.ts"
import { CapacityNetwork } from "./CapacityNetwork.ts"
import { UsageReconciler } from "./UsageReconciler.ts"

/**
 * This process's replica of the network and its usage, with the events that keep it current and
 * the reconciler that catches lost ones; needs CapacityRepository and StreamQueue. Layers are
 * shared by reference within one build: every handler that provides this one gets the same
 * replica (one config, so one generated key).
 */
export const NetworkReplica = UsageReconciler.pipe(
  Layer.provideMerge(CapacityNetwork.layer),
  Layer.provide(CapacityEvents.layer),
  Layer.provideMerge(CapacityConfig.layer)
)
