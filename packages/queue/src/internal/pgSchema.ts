import { Effect } from "effect"
import type { SqlClient } from "effect/sql"

/** Arbitrary constant shared by every process that creates these tables. */
const SCHEMA_LOCK_KEY = 7_301_552_020

/**
 * The queue's own tables. Entry ids are a per-stream counter (`<seq>-0`), kept on the stream's row
 * so that lastId survives deleting the newest entry. Dead letters are entries of `<stream>:dead`
 * with their reason, count and source id.
 */
const statements = [
  `CREATE TABLE IF NOT EXISTS retail_queue_streams (
    stream text PRIMARY KEY,
    last_seq bigint NOT NULL DEFAULT 0
  )`,
  `CREATE TABLE IF NOT EXISTS retail_queue_entries (
    stream text NOT NULL,
    seq bigint NOT NULL,
    payload text NOT NULL,
    reason text,
    deliveries integer,
    source_id text,
    traceparent text,
    PRIMARY KEY (stream, seq)
  )`,
  `CREATE TABLE IF NOT EXISTS retail_queue_groups (
    stream text NOT NULL,
    group_name text NOT NULL,
    last_delivered bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (stream, group_name)
  )`,
  `CREATE TABLE IF NOT EXISTS retail_queue_pending (
    stream text NOT NULL,
    group_name text NOT NULL,
    seq bigint NOT NULL,
    consumer text NOT NULL,
    deliveries integer NOT NULL,
    delivered_at timestamptz NOT NULL,
    PRIMARY KEY (stream, group_name, seq)
  )`,
  `CREATE TABLE IF NOT EXISTS retail_queue_tracked (
    set_name text NOT NULL,
    member text NOT NULL,
    PRIMARY KEY (set_name, member)
  )`
]

/**
 * Payloads stored as they are: compressing each 400 KB entry (pglz) cost the embedded server more
 * than half the CPU of persisting its products, for rows deleted moments later (docs/queue.md). Set after
 * creation (CREATE TABLE takes STORAGE only from PostgreSQL 16), and only when not set yet, since
 * ALTER TABLE waits for every transaction using the table.
 */
const uncompressedPayloads = (sql: SqlClient.SqlClient) =>
  sql`
    SELECT 1 FROM pg_attribute
    WHERE attrelid = 'retail_queue_entries'::regclass AND attname = 'payload' AND attstorage <> 'e'
  `.pipe(
    Effect.flatMap((rows) =>
      rows.length === 0 ? Effect.void : sql.unsafe("ALTER TABLE retail_queue_entries ALTER COLUMN payload SET STORAGE EXTERNAL")
    )
  )

/**
 * The W3C trace context of an entry (docs/observability.md), added to tables made before it; checked
 * first for the same reason as the storage: ALTER TABLE waits for every transaction using the table.
 */
const traceparentColumn = (sql: SqlClient.SqlClient) =>
  sql`
    SELECT 1 FROM pg_attribute
    WHERE attrelid = 'retail_queue_entries'::regclass AND attname = 'traceparent' AND NOT attisdropped
  `.pipe(
    Effect.flatMap((rows) =>
      rows.length > 0 ? Effect.void : sql.unsafe("ALTER TABLE retail_queue_entries ADD COLUMN IF NOT EXISTS traceparent text")
    )
  )

/**
 * Created by the queue itself (it must not depend on the store's migrations), idempotently. Two
 * processes running CREATE TABLE IF NOT EXISTS at once can still collide, hence the lock.
 */
export const ensureSchema = (sql: SqlClient.SqlClient) =>
  sql.withTransaction(
    Effect.andThen(
      sql`SELECT pg_advisory_xact_lock(${SCHEMA_LOCK_KEY})`,
      Effect.andThen(
        Effect.forEach(statements, (statement) => sql.unsafe(statement), { discard: true }),
        Effect.andThen(traceparentColumn(sql), uncompressedPayloads(sql))
      )
    )
  )
