export * from "./ApiKeyAuthentication.ts"
export * from "./CapacityConfig.ts"
export * from "./CapacityNetwork.ts"
export * as CapacityService from "./CapacityService.ts"
