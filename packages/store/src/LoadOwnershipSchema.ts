import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Who answers for a load until it is fully published, and how many batches it was published as.
 * - server_instances: one row per running server process, its heartbeat renewed while it lives;
 *   a row whose heartbeat is older than the lease belongs to a process that is gone.
 * - loads.owner: the instance that received (and publishes) the load.
 * - loads.batches: how many queue entries the load was published as; known before publishing for a
 *   request body, when receiving ends for a file. With the batches recorded in load_batches and those
 *   still tracked on the queue, it tells a load that will finish from one the queue lost.
 */
const statements: ReadonlyArray<string> = [
  `CREATE TABLE server_instances (
    id text PRIMARY KEY,
    name text NOT NULL,
    started_at timestamptz NOT NULL DEFAULT now(),
    heartbeat_at timestamptz NOT NULL DEFAULT now()
  )`,
  `ALTER TABLE loads ADD COLUMN owner text`,
  `ALTER TABLE loads ADD COLUMN batches integer`,
  `CREATE INDEX loads_unfinished ON loads (created_at) WHERE status IN ('RECEIVED', 'PROCESSING')`
]

export const migration0006 = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.forEach(statements, (statement) => sql.unsafe(statement), { discard: true })
)

/**
 * loads.queue: the stream a load was published on. Servers that share a database need not share a
 * queue (two deployments, or tests and benchmarks each on streams of their own); a reconciler
 * looking for a load's batches on its own stream would take another queue's load for one whose
 * batches were lost. NULL for loads made before it: judged by every reconciler, as they were.
 */
export const migration0007 = Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`ALTER TABLE loads ADD COLUMN queue text`))
