import { Cause, Effect, Schema } from "effect"
import { SqlError } from "effect/sql"

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

/**
 * The message and the first cause that says something else: a SqlError's reason repeats its
 * message (SqlError -> reason -> the driver's error), so the chain is followed past repeats.
 */
const describe = (error: unknown): string => {
  if (error instanceof Error) {
    let cause: unknown = error.cause
    while (cause instanceof Error && cause.message === error.message) cause = cause.cause
    return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message
  }
  return String(error)
}

export const toStoreError = (operation: string) => (error: unknown): StoreError =>
  error instanceof StoreError ? error : new StoreError({ operation, message: describe(error) })

/**
 * effect/sql's withTransaction turns a failed ROLLBACK into a defect (`orDie`): the connection
 * died mid-transaction, which is a database fault like any other, so it becomes a failure again.
 * Other defects stay defects.
 */
export const sqlDefectsAsFailures = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError.SqlError, R> =>
  Effect.catchCause(effect, (cause): Effect.Effect<never, E | SqlError.SqlError> => {
    for (const reason of cause.reasons) {
      if (Cause.isDieReason(reason) && SqlError.isSqlError(reason.defect)) return Effect.fail(reason.defect)
    }
    return Effect.failCause(cause)
  })

/** Maps every failure of `effect`, and a transaction's lost connection, to a StoreError named `operation`. */
export const storeOperation = (operation: string) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, StoreError, R> =>
    Effect.mapError(sqlDefectsAsFailures(effect), toStoreError(operation))
