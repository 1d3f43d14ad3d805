/**
 * Running the queue's statements: every failure (a database error, a transaction whose connection
 * died, a row of an unexpected shape, no answer in time) becomes a QueueError named by operation.
 */
import { Effect, Option, Schema } from "effect"
import { SqlError } from "effect/sql"
import * as StreamId from "./StreamId.ts"
import { QueueError } from "../StreamQueue.ts"

/**
 * The error's message and its causes' (a SqlError's reason, then the driver's error), each once:
 * what went wrong is usually in the innermost one.
 */
const describe = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error)
  const messages = [error.message]
  let cause: unknown = error.cause
  for (let depth = 0; depth < 3 && cause instanceof Error; depth++) {
    if (cause.message !== "" && !messages.includes(cause.message)) messages.push(cause.message)
    cause = cause.cause
  }
  return messages.join(": ")
}

/** Maps failures, and withTransaction's failed COMMIT or ROLLBACK (a defect there), to QueueError; bounds the wait. */
export const bounded = (operation: string, timeoutMs: number) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, QueueError, R> =>
    effect.pipe(
      Effect.catchDefect((defect) => SqlError.isSqlError(defect) ? Effect.fail(defect) : Effect.die(defect)),
      Effect.mapError((error) => error instanceof QueueError ? error : new QueueError({ operation, message: describe(error) })),
      Effect.timeoutOrElse({
        duration: timeoutMs,
        orElse: () => Effect.fail(new QueueError({ operation, message: `no answer from PostgreSQL within ${timeoutMs} ms` }))
      })
    )

export const decodeRows = <S extends Schema.Decoder<unknown>>(operation: string, row: S) => {
  const decode = Schema.decodeUnknownEffect(Schema.Array(row))
  return (rows: unknown): Effect.Effect<ReadonlyArray<S["Type"]>, QueueError> =>
    Effect.mapError(decode(rows), (error) => new QueueError({ operation, message: `unexpected row: ${error.message}` }))
}

export const EntryRow = Schema.Struct({ seq: Schema.String, payload: Schema.String })
export const DeliveryRow = Schema.Struct({
  seq: Schema.String,
  payload: Schema.String,
  traceparent: Schema.NullOr(Schema.String),
  deliveries: Schema.Number
})
export const DeadRow = Schema.Struct({
  seq: Schema.String,
  payload: Schema.String,
  reason: Schema.String,
  deliveries: Schema.Number,
  source_id: Schema.String
})
export const SeqRow = Schema.Struct({ seq: Schema.String })

/** Ids are `<seq>-0`: the stream's counter, formatted as Redis formats ids. */
export const idOf = (seq: string): string => `${seq}-0`

export const parseId = (operation: string, id: string): Effect.Effect<StreamId.StreamId, QueueError> =>
  Option.match(StreamId.parse(id), {
    onNone: () => Effect.fail(new QueueError({ operation, message: `Invalid stream ID specified: ${id}` })),
    onSome: Effect.succeed
  })

/**
 * The counter of the entry an id names; -1 (none) for an id of another form (`5-3`, as Redis would
 * give), which this queue never hands out. Entries after such an id are those after `5-0`.
 */
export const exactSeq = (id: StreamId.StreamId): number => id.seq === 0 ? id.ms : -1
