import { Effect } from "effect"
import { QueueError } from "../StreamQueue.ts"

/** Rejects counts and durations both implementations would otherwise read differently. */
export const nonNegativeInt = (operation: string, name: string, value: number): Effect.Effect<void, QueueError> =>
  Number.isSafeInteger(value) && value >= 0
    ? Effect.void
    : Effect.fail(new QueueError({ operation, message: `${name} must be a non-negative integer, got ${value}` }))

export const positiveInt = (operation: string, name: string, value: number): Effect.Effect<void, QueueError> =>
  Number.isSafeInteger(value) && value > 0
    ? Effect.void
    : Effect.fail(new QueueError({ operation, message: `${name} must be a positive integer, got ${value}` }))

export const readOptions = (
  operation: string,
  options: { readonly count: number; readonly blockMs: number }
): Effect.Effect<void, QueueError> =>
  Effect.andThen(positiveInt(operation, "count", options.count), nonNegativeInt(operation, "blockMs", options.blockMs))

export const optionalNonNegativeInt = (operation: string, name: string, value: number | undefined): Effect.Effect<void, QueueError> =>
  value === undefined ? Effect.void : nonNegativeInt(operation, name, value)
