import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * products.document stops being written: it held each product's JSON again beside its columns and
 * child rows, and compressing and storing it was about half of PostgreSQL's work per product
 * (docs/products.md, "How products are written"). Made nullable rather than dropped, so that a process of
 * the previous release still running during a rolling deploy can write; a later migration drops it.
 */
export const migration0008 = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`ALTER TABLE products ALTER COLUMN document DROP NOT NULL`)
)
