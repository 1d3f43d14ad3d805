import { LoadStatus } from "@retail/domain"
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { recordedBatchNos } from "./LoadAccounting.ts"
import { storeOperation, type StoreError } from "./StoreError.ts"

/** A load not yet final, with what the reconciler needs to tell whether it can still finish. */
export const UnfinishedLoad = Schema.Struct({
  processCode: Schema.String,
  status: LoadStatus,
  receiving: Schema.Boolean,
  owner: Schema.NullOr(Schema.String),
  /** False when the owner's heartbeat is older than the lease, or it has no owner. */
  ownerAlive: Schema.Boolean,
  batches: Schema.NullOr(Schema.Number),
  accepted: Schema.Number,
  persisted: Schema.Number
})
export type UnfinishedLoad = typeof UnfinishedLoad.Type

const decodeUnfinished = Schema.decodeUnknownEffect(Schema.Array(UnfinishedLoad))

/** How long an instance row outlives its last heartbeat before it is removed (its loads were long reconciled). */
const FORGET_INSTANCES_AFTER = "1 day"

/**
 * Server instances and their heartbeats, and the loads they answer for: what lets any process
 * find the loads of a process that is gone.
 */
export class LoadOwnership extends Context.Service<LoadOwnership>()("@retail/store/LoadOwnership", {
  make: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const register = (id: string, name: string): Effect.Effect<void, StoreError> =>
      sql`
        INSERT INTO server_instances (id, name) VALUES (${id}, ${name})
        ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()
      `.pipe(storeOperation("registerInstance"), Effect.asVoid)

    /** Renews the lease; an instance removed meanwhile (taken for gone) registers again. */
    const heartbeat = (id: string, name: string): Effect.Effect<void, StoreError> =>
      sql.withTransaction(Effect.gen(function* () {
        yield* register(id, name)
        yield* sql`DELETE FROM server_instances WHERE heartbeat_at < now() - ${FORGET_INSTANCES_AFTER}::interval`
      })).pipe(storeOperation("heartbeat"))

    /** On a clean shutdown: the loads it still owns are reconciled at once by the others. */
    const deregister = (id: string): Effect.Effect<void, StoreError> =>
      sql`DELETE FROM server_instances WHERE id = ${id}`.pipe(storeOperation("deregisterInstance"), Effect.asVoid)

    /** The loads not yet final that were published on `queue` (or made before loads recorded their queue). */
    const unfinished = (leaseMs: number, queue: string): Effect.Effect<ReadonlyArray<UnfinishedLoad>, StoreError> =>
      sql`
        SELECT l.process_code::text AS "processCode", l.status, l.receiving, l.owner,
          COALESCE(s.heartbeat_at > now() - make_interval(secs => ${leaseMs / 1000}), false) AS "ownerAlive",
          l.batches, l.accepted, l.persisted
        FROM loads l LEFT JOIN server_instances s ON s.id = l.owner
        WHERE l.status IN ('RECEIVED', 'PROCESSING') AND (l.queue IS NULL OR l.queue = ${queue})
        ORDER BY l.created_at
      `.pipe(Effect.flatMap(decodeUnfinished), storeOperation("unfinishedLoads"))

    /** Batch numbers of the load already persisted or dead-lettered. */
    const recordedBatches = (processCode: string): Effect.Effect<ReadonlyArray<number>, StoreError> =>
      recordedBatchNos(sql, processCode).pipe(storeOperation("recordedBatches"))

    return { register, heartbeat, deregister, unfinished, recordedBatches } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
