import { Context, Effect, Layer } from "effect"
import { UploadConfig } from "../UploadConfig.ts"

/**
 * This server process as the owner of the loads it receives: a fresh id per start, so a restarted
 * process never passes for the one that died (whose loads the reconciler takes over).
 */
export class LoadOwner extends Context.Service<LoadOwner, {
  readonly id: string
  /** For people: the process's consumer name. */
  readonly name: string
}>()("@retail/upload/LoadOwner") {
  static readonly layer = Layer.effect(
    LoadOwner,
    Effect.map(UploadConfig, (config) => ({ id: crypto.randomUUID(), name: config.consumerPrefix }))
  )

  static readonly test = (id: string = crypto.randomUUID()) => Layer.succeed(LoadOwner, { id, name: "test" })
}
