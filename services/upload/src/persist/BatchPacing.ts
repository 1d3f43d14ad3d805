import { Context, Effect } from "effect"

export interface BatchPacingShape {
  /** Run after a consumer received a batch and before it persists it: where persisting gives way to work that comes first. */
  readonly beforeBatch: Effect.Effect<void>
}

/**
 * How the batch consumers pace themselves. By default not at all: on the event loop, persisting
 * already waits its turn behind the requests; on a worker process nothing else runs. The workers'
 * thread paces itself by the event loop's delay (services/server, LoopPacing.ts).
 */
export const BatchPacing = Context.Reference<BatchPacingShape>("@retail/upload/BatchPacing", {
  defaultValue: () => ({ beforeBatch: Effect.void })
})
