import { Effect } from "effect"
import { Migrator, SqlClient } from "effect/sql"
import { migration0002, migration0003, migration0004, migration0005, migration0010, migration0012, migration0013 } from "./CapacitySchema.ts"
import { migration0006, migration0007 } from "./LoadOwnershipSchema.ts"
import { migration0014 } from "./LoadRetention.ts"
import { migration0011 } from "./NetworkChangeSchema.ts"
import { migration0008 } from "./ProductDocumentSchema.ts"
import { migration0001 } from "./Schema.ts"
import { migration0009 } from "./StockSchema.ts"
import { storeOperation } from "./StoreError.ts"

export const MIGRATIONS_TABLE = "retail_store_migrations"
/** Arbitrary constant shared by every process that migrates this database. */
const MIGRATION_LOCK_KEY = 7_301_552_019

/** Every migration of the store, by its id and name, in the order they apply. */
export const MIGRATIONS = {
  "0001_create_tables": migration0001,
  "0002_capacity_tables": migration0002,
  "0003_capacity_usage_revision": migration0003,
  "0004_capacity_order_functions": migration0004,
  "0005_capacity_order_request": migration0005,
  "0006_load_ownership": migration0006,
  "0007_load_queue": migration0007,
  "0008_product_document_optional": migration0008,
  "0009_capacity_stock": migration0009,
  "0010_capacity_key_lookups": migration0010,
  "0011_capacity_network_changes": migration0011,
  "0012_capacity_room_check_in_bigint": migration0012,
  "0013_capacity_order_groups": migration0013,
  "0014_load_retention": migration0014
}

const runMigrator = Migrator.make({})({
  loader: Migrator.fromRecord(MIGRATIONS),
  table: MIGRATIONS_TABLE
})

/**
 * Applies pending migrations. The migrator's own check-then-create of its table races when two
 * processes start at once, so the whole run is one transaction behind a transaction-scoped advisory lock.
 */
export const migrate = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return yield* sql.withTransaction(
    Effect.gen(function* () {
      yield* sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`
      yield* sql.unsafe(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (
        migration_id integer PRIMARY KEY,
        created_at timestamptz NOT NULL DEFAULT now(),
        name text NOT NULL
      )`)
      return yield* runMigrator
    })
  )
}).pipe(storeOperation("migrate"))
