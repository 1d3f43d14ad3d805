import { Effect, Schema } from "effect"

/** Every failure of the database or of a stored value, named by the repository operation that met it. */
export class StoreError extends Schema.TaggedError<StoreError>()("StoreError", {
  operation: Schema.String,
  message: Schema.String
}) {}

/** A paging cursor that this store did not hand out. */
export class InvalidCursor extends Schema.TaggedError<InvalidCursor>()("InvalidCursor", {
  cursor: Schema.String,
  message: Schema.String
}) {}

const describe = (error: unknown): string => {
  if (error instanceof Error) {
    const cause = error.cause
    return cause instanceof Error && cause.message !== error.message ? `${error.message}: ${cause.message}` : error.message
  }
  return String(error)
}

export const toStoreError = (operation: string) => (error: unknown): StoreError =>
  error instanceof StoreError ? error : new StoreError({ operation, message: describe(error) })

/** Maps every failure of `effect` to a StoreError named `operation`. */
export const storeOperation = (operation: string) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, StoreError, R> =>
    Effect.mapError(effect, toStoreError(operation))
