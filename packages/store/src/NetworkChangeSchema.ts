import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Network changes (issue 25): the state of one target on one date, one row each, over the stored
 * network document (NetworkChanges.ts in @retail/capacity says what kind, target, part and value
 * hold). `sequence` is the feed's sequence number of the batch that last set the row: a batch
 * whose sequence is not above it leaves the row alone (replays and late batches change nothing).
 * A row whose value is null (an override taken back) is kept for its sequence.
 *
 * Expand only: a process of the previous release does not read the table and serves the document
 * as it is; nothing of the document changes.
 */
export const migration0011 = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.forEach([
    `CREATE TABLE capacity_network_changes (
      kind text NOT NULL,
      target text NOT NULL,
      part text NOT NULL,
      day date NOT NULL,
      value integer CHECK (value >= 0),
      sequence bigint NOT NULL CHECK (sequence >= 0),
      PRIMARY KEY (kind, target, part, day)
    )`,
    // A replica loads the changes from yesterday on.
    `CREATE INDEX capacity_network_changes_day ON capacity_network_changes (day)`
  ], (statement) => sql.unsafe(statement), { discard: true })
)
