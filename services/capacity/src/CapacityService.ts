import { Layer } from "effect"
import { ApiKeyAuthentication } from "./ApiKeyAuthentication.ts"
import { CapacityConfig } from "./CapacityConfig.ts"
import { CapacityNetwork } from "./CapacityNetwork.ts"
import { CapacityAdminHttp } from "./http/CapacityAdminHttp.ts"
import { DeliveryCapacityHttp } from "./http/DeliveryCapacityHttp.ts"

/** The capacity endpoints, ready to be added to the HttpApi; needs CapacityRepository. */
export const http = Layer.mergeAll(DeliveryCapacityHttp, CapacityAdminHttp).pipe(
  Layer.provide(CapacityNetwork.Default),
  Layer.provide(CapacityConfig.layer)
)

/** The API-key middleware of the administration endpoints (layers are shared by reference: one key set). */
export const authentication = ApiKeyAuthentication.pipe(Layer.provide(CapacityConfig.layer))
