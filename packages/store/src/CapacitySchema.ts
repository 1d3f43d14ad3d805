import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Tables of the delivery capacity store.
 * - capacity_network: the one current network document (row id 1) and its version.
 * - capacity_usage: units used per resource and date; the conditional UPDATE on it is what
 *   keeps concurrent orders (in any process) from overselling.
 * - capacity_orders / capacity_ledger: which order took what, for idempotency and release.
 * A resource is (kind, code, slot): slot is the pool of a node resource, the window of a zone
 * window, and '' for a route departure.
 */
export const createCapacityTables: ReadonlyArray<string> = [
  `CREATE TABLE capacity_network (
    id smallint PRIMARY KEY CHECK (id = 1),
    version bigint NOT NULL,
    document jsonb NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
  )`,
  `CREATE TABLE capacity_usage (
    kind text NOT NULL,
    code text NOT NULL,
    slot text NOT NULL,
    day date NOT NULL,
    used integer NOT NULL CHECK (used >= 0),
    PRIMARY KEY (kind, code, slot, day)
  )`,
  `CREATE TABLE capacity_orders (
    order_id text PRIMARY KEY,
    created_at timestamptz NOT NULL DEFAULT now()
  )`,
  `CREATE TABLE capacity_ledger (
    order_id text NOT NULL REFERENCES capacity_orders (order_id) ON DELETE CASCADE,
    kind text NOT NULL,
    code text NOT NULL,
    slot text NOT NULL,
    day date NOT NULL,
    units integer NOT NULL CHECK (units > 0),
    PRIMARY KEY (order_id, kind, code, slot, day)
  )`,
  `CREATE INDEX capacity_ledger_resource ON capacity_ledger (kind, code, day)`
]

export const migration0002 = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.forEach(createCapacityTables, (statement) => sql.unsafe(statement), { discard: true })
)

/**
 * Every change of a usage row bumps its revision (under the row lock, so in commit order): a
 * replica that receives absolute usage values out of order keeps the one with the highest revision.
 */
export const migration0003 = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql`ALTER TABLE capacity_usage ADD COLUMN revision integer NOT NULL DEFAULT 0`
)
