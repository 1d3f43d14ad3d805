import { Authentication } from "@retail/api"
import { TokenVerifier } from "@retail/service-upload"
import { Effect, Layer, Redacted } from "effect"

export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.map(TokenVerifier, (verifier) => ({ bearer: (token) => verifier.verify(Redacted.value(token)) }))
).pipe(Layer.provide(TokenVerifier.Default))
