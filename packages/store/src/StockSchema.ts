import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Stock in a table of its own (issue 25), one row per SKU and node, keyed by SKU first so that a
 * replica loads it SKU by SKU:
 * - `sequence`: the feed's sequence number of the batch that last set the row; a batch whose
 *   sequence is not above it leaves the row alone (replays and late batches change nothing);
 * - `revision`: raised by one with every change of the row, under its row lock, so in commit
 *   order: replicas holding absolute values keep the highest (as capacity_usage's revision);
 * - `writer`: the transaction that last wrote the row, so the reconciler finds the transactions
 *   since its last pass (by `pg_snapshot_xmin`, which no transaction still running is below) and
 *   reads only the rows of those whose changes it did not receive.
 *
 * Expand only: the network document keeps its `stock` (a process of the previous release still
 * reads it), and nothing is dropped. The table is filled from the stored network's stock when a
 * process finds it empty (StockRepository.seedFromNetwork), so a database migrated while the
 * previous release runs starts from the stock that release served.
 */
export const migration0009 = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.forEach([
    `CREATE TABLE capacity_stock (
      sku text NOT NULL,
      node text NOT NULL,
      units integer NOT NULL CHECK (units >= 0),
      sequence bigint NOT NULL CHECK (sequence >= 0),
      revision integer NOT NULL,
      writer xid8 NOT NULL DEFAULT pg_current_xact_id(),
      PRIMARY KEY (sku, node)
    )`,
    // The reconciler lists the transactions written since its last pass, and reads the rows of those it did not hear of.
    `CREATE INDEX capacity_stock_writer ON capacity_stock (writer, sku, node)`
  ], (statement) => sql.unsafe(statement), { discard: true })
)
