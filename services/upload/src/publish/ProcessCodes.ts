import { Context, Effect } from "effect"

export interface ProcessCodesShape {
  /** A new load's process code: a UUID unless a test gives codes of its own. */
  readonly next: Effect.Effect<string>
}

/** Where a load's process code comes from: random UUIDs by default, a seam for tests that want to know the code in advance. */
export const ProcessCodes = Context.Reference<ProcessCodesShape>("@retail/upload/ProcessCodes", {
  defaultValue: () => ({ next: Effect.sync(() => crypto.randomUUID()) })
})
