import { HttpApiError } from "@effect/platform"
import { CapacityApiKey } from "@retail/api"
import { Effect, Layer, Redacted } from "effect"
import { CapacityConfig } from "./CapacityConfig.ts"

export const ApiKeyAuthentication = Layer.effect(
  CapacityApiKey,
  Effect.map(CapacityConfig, (config) => ({
    apiKey: (key: Redacted.Redacted<string>) =>
      config.apiKeys.has(Redacted.value(key)) ? Effect.void : Effect.fail(new HttpApiError.Unauthorized())
  }))
)
