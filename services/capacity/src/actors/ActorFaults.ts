import { Context, Effect } from "effect"

export type ActorStep = "reload" | "message"

export interface ActorFaultsShape {
  readonly before: (actor: string, step: ActorStep) => Effect.Effect<void>
}

/** The seam as it is outside fault-injection tests: nothing happens. */
export const noActorFaults: ActorFaultsShape = { before: (_actor: string, _step: ActorStep): Effect.Effect<void> => Effect.void }

/**
 * A seam for fault-injection tests: runs before an actor reloads or handles a message, and may
 * fail to make the actor crash there. Does nothing unless a test provides one.
 */
export const ActorFaults = Context.Reference<ActorFaultsShape>("@retail/capacity/ActorFaults", {
  defaultValue: () => noActorFaults
})
