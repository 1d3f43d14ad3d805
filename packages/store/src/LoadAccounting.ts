import { LoadStatusChanged } from "@retail/domain"
import { Effect, Option, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import { countStatusChange } from "./LoadMetrics.ts"
import { ChangedLoadRow, loadColumns, toStatusChanged } from "./LoadRow.ts"
import { logStatusChange } from "./LoadStatusLog.ts"

const decodeChanged = Schema.decodeUnknownEffect(Schema.Array(ChangedLoadRow))

const firstChanged = (rows: ReadonlyArray<unknown>) => Effect.map(decodeChanged(rows), (decoded) => Option.fromNullishOr(decoded[0]))

const decodeBatchNos = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ batchNo: Schema.Number })))

/** The batch numbers of a load recorded in load_batches (persisted or dead-lettered). */
export const recordedBatchNos = (sql: SqlClient.SqlClient, processCode: string) =>
  sql`SELECT batch_no AS "batchNo" FROM load_batches WHERE process_code = ${processCode}`.pipe(
    Effect.flatMap(decodeBatchNos),
    Effect.map((rows) => rows.map((row) => row.batchNo))
  )

export interface CountsDelta {
  readonly received?: number
  readonly accepted?: number
  readonly failed?: number
  readonly persisted?: number
  readonly deadLettered?: number
  readonly finishReceiving?: boolean
}

/**
 * Adds to a load's counters under its row lock and completes it when every accepted product is
 * accounted for (persisted or dead-lettered) and receiving has finished. None when the load is unknown.
 */
export const adjustCounts = (sql: SqlClient.SqlClient, processCode: string, delta: CountsDelta) =>
  sql`
    WITH old AS (
      SELECT * FROM loads WHERE process_code = ${processCode} FOR UPDATE
    ), next AS (
      SELECT process_code,
        status AS previous_status,
        received + ${delta.received ?? 0}::int AS received,
        accepted + ${delta.accepted ?? 0}::int AS accepted,
        persisted + ${delta.persisted ?? 0}::int AS persisted,
        failed + ${delta.failed ?? 0}::int AS failed,
        dead_lettered + ${delta.deadLettered ?? 0}::int AS dead_lettered,
        receiving AND NOT ${delta.finishReceiving ?? false}::boolean AS receiving
      FROM old
    ), decided AS (
      SELECT next.*,
        CASE
          WHEN previous_status IN ('RECEIVED', 'PROCESSING') AND NOT receiving AND persisted + dead_lettered >= accepted
            THEN CASE WHEN failed = 0 THEN 'COMPLETED' ELSE 'COMPLETED_WITH_ERRORS' END
          ELSE previous_status
        END AS status
      FROM next
    )
    UPDATE loads l SET
      received = d.received, accepted = d.accepted, persisted = d.persisted, failed = d.failed,
      dead_lettered = d.dead_lettered, receiving = d.receiving, status = d.status,
      completed_at = CASE WHEN d.status <> d.previous_status THEN now() ELSE l.completed_at END,
      updated_at = now()
    FROM decided d
    WHERE l.process_code = d.process_code
    RETURNING ${sql.literal(loadColumns("l"))}, d.previous_status AS "previousStatus"
  `.pipe(Effect.flatMap(firstChanged))

/** RECEIVED -> PROCESSING; Some only when the status changed. */
export const startProcessing = (sql: SqlClient.SqlClient, processCode: string) =>
  sql`
    WITH old AS (SELECT process_code, status FROM loads WHERE process_code = ${processCode} FOR UPDATE)
    UPDATE loads l SET status = 'PROCESSING', updated_at = now()
    FROM old
    WHERE l.process_code = old.process_code AND old.status = 'RECEIVED'
    RETURNING ${sql.literal(loadColumns("l"))}, old.status AS "previousStatus"
  `.pipe(Effect.flatMap(firstChanged))

/** Any non-final status -> FAILED; Some only when the status changed. */
export const fail = (sql: SqlClient.SqlClient, processCode: string, reason: string) =>
  sql`
    WITH old AS (SELECT process_code, status FROM loads WHERE process_code = ${processCode} FOR UPDATE)
    UPDATE loads l SET status = 'FAILED', failure_reason = ${reason}, completed_at = now(), updated_at = now()
    FROM old
    WHERE l.process_code = old.process_code AND old.status IN ('RECEIVED', 'PROCESSING')
    RETURNING ${sql.literal(loadColumns("l"))}, old.status AS "previousStatus"
  `.pipe(Effect.flatMap(firstChanged))

const encodeEvent = Schema.encodeEffect(Schema.fromJsonString(LoadStatusChanged))

/** Writes a LoadStatusChanged into the outbox, in the caller's transaction, when the status changed. */
export const recordChange = (sql: SqlClient.SqlClient, row: Option.Option<ChangedLoadRow>) =>
  Option.match(Option.filter(row, (r) => r.status !== r.previousStatus), {
    onNone: () => Effect.succeed(false),
    onSome: (changed) =>
      Effect.gen(function* () {
        const payload = yield* encodeEvent(toStatusChanged(changed))
        yield* sql`INSERT INTO load_events (process_code, payload) VALUES (${changed.processCode}, ${payload}::jsonb)`
        yield* logStatusChange(changed)
        yield* countStatusChange(changed)
        return true
      })
  })
