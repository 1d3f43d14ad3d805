export * from "./ApiKeyAuthentication.ts"
export * from "./ApiKeys.ts"
export * from "./BearerAuthentication.ts"
export * from "./TokenVerifier.ts"
