import { SqlError } from "@effect/sql"
import { Effect, Option, Schema } from "effect"

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

/**
 * @effect/sql's withTransaction turns a failed COMMIT or ROLLBACK into a defect (`orDie`): the
 * connection died mid-transaction, which is a database fault like any other, so it becomes a
 * failure again. Other defects stay defects.
 */
export const sqlDefectsAsFailures = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError.SqlError, R> =>
  Effect.catchSomeDefect(effect, (defect) =>
    defect instanceof SqlError.SqlError ? Option.some(Effect.fail(defect)) : Option.none())

/** Maps every failure of `effect`, and a transaction's lost connection, to a StoreError named `operation`. */
export const storeOperation = (operation: string) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, StoreError, R> =>
    Effect.mapError(sqlDefectsAsFailures(effect), toStoreError(operation))
