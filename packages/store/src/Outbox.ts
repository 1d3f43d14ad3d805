import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { sqlDefectsAsFailures, storeOperation, type StoreError, toStoreError } from "./StoreError.ts"

/** One LoadStatusChanged waiting in the outbox; `payload` is its JSON text. */
export interface OutboxEvent {
  readonly id: string
  readonly processCode: string
  readonly payload: string
}

const decodeEvents = Schema.decodeUnknownEffect(
  Schema.Array(Schema.Struct({ id: Schema.String, processCode: Schema.String, payload: Schema.String }))
)

/** Carries the callback's own failure through the transaction untouched. */
class PublishFailed<E> {
  constructor(readonly error: E) {}
}

export class Outbox extends Context.Service<Outbox>()("@retail/store/Outbox", {
  make: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const unpublished = (limit: number, lock: boolean) =>
      sql`
        SELECT id::text AS id, process_code::text AS "processCode", payload::text AS payload
        FROM load_events WHERE published_at IS NULL
        ORDER BY load_events.id LIMIT ${Math.max(1, Math.floor(limit))}
        ${lock ? sql`FOR UPDATE SKIP LOCKED` : sql``}
      `.pipe(Effect.flatMap(decodeEvents))

    const mark = (ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.void
        : sql`UPDATE load_events SET published_at = now() WHERE id = ANY(${`{${ids.join(",")}}`}::bigint[])`.pipe(Effect.asVoid)

    /** Up to `limit` unpublished events in id order, without claiming them (a single relay, or a peek). */
    const claimUnpublished = (limit: number): Effect.Effect<ReadonlyArray<OutboxEvent>, StoreError> =>
      unpublished(limit, false).pipe(storeOperation("claimUnpublished"))

    const markPublished = (ids: ReadonlyArray<string>): Effect.Effect<void, StoreError> =>
      mark(ids).pipe(storeOperation("markPublished"))

    /**
     * Locks up to `limit` unpublished events (skipping those another relay holds), hands them to
     * `publish` in id order, and marks them published in the same transaction only if it succeeded:
     * a failed or interrupted publish leaves them for the next round (at-least-once).
     */
    const publishPending = <E, R>(
      limit: number,
      publish: (events: ReadonlyArray<OutboxEvent>) => Effect.Effect<void, E, R>
    ): Effect.Effect<number, StoreError | E, R> =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const events = yield* unpublished(limit, true).pipe(storeOperation("publishPending"))
            if (events.length === 0) return 0
            yield* Effect.mapError(publish(events), (error) => new PublishFailed(error))
            yield* mark(events.map((event) => event.id)).pipe(storeOperation("publishPending"))
            return events.length
          })
        )
        .pipe(
          sqlDefectsAsFailures,
          Effect.mapError((error) => (error instanceof PublishFailed ? error.error : toStoreError("publishPending")(error)))
        )

    return { claimUnpublished, markPublished, publishPending } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
