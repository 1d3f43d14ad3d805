import { PgTypes } from "@effect/sql-pg"
import type { StockColumns } from "@retail/capacity"
import { Context, Effect, Layer, Result } from "effect"
import { SqlClient } from "effect/sql"
import { StoreError, storeOperation } from "./StoreError.ts"

/** Stock sets of a batch as columns (distinct node and SKU pairs), without their revisions. */
export interface StockSets {
  readonly nodes: ReadonlyArray<string>
  readonly skus: ReadonlyArray<string>
  readonly units: ReadonlyArray<number>
}

/** The rows one statement set, and the transaction that wrote them (none when it set no row). */
export interface StockWritten {
  readonly rows: StockColumns
  readonly writer: string | undefined
}

const { int4: INT4, text: TEXT } = PgTypes.OID

/** One binary array parameter; every value was validated before, so encoding cannot fail. */
const column = (values: ReadonlyArray<string | number>, oid: number): PgTypes.Parameter => Result.getOrThrow(PgTypes.array(values, oid))

const RETURNED = `RETURNING t.node, t.sku, t.units, t.revision, t.writer::text`

/**
 * $1 nodes, $2 SKUs, $3 units, $4 the batch's sequence. Rows are inserted in key order, so two
 * batches lock the rows they share in the same order (no deadlock). A stored row is set only when
 * its sequence is below the batch's: a replay, or a batch older than the row's last, changes nothing.
 */
const APPLY_SETS = `
  INSERT INTO capacity_stock AS t (sku, node, units, sequence, revision, writer)
  SELECT u.sku, u.node, u.units, $4::bigint, 1, pg_current_xact_id()
  FROM unnest($1, $2, $3) AS u(node, sku, units)
  ORDER BY u.sku, u.node
  ON CONFLICT (sku, node) DO UPDATE SET
    units = EXCLUDED.units, sequence = EXCLUDED.sequence, revision = t.revision + 1, writer = EXCLUDED.writer
  WHERE t.sequence < EXCLUDED.sequence
  ${RETURNED}`

/**
 * $1 nodes, $2 SKUs, $3 units: a network document's stock, set whatever the rows' sequences (an
 * operator's statement of the stock now); a row keeps its sequence, so the feed's next batch wins
 * over it. A row already at those units is left alone (the same document PUT again writes nothing).
 */
const SET_UNITS = `
  INSERT INTO capacity_stock AS t (sku, node, units, sequence, revision, writer)
  SELECT u.sku, u.node, u.units, 0, 1, pg_current_xact_id()
  FROM unnest($1, $2, $3) AS u(node, sku, units)
  ORDER BY u.sku, u.node
  ON CONFLICT (sku, node) DO UPDATE SET units = EXCLUDED.units, revision = t.revision + 1, writer = EXCLUDED.writer
  WHERE t.units <> EXCLUDED.units
  ${RETURNED}`

/** The stored network's stock, entries of one node and SKU added up (as a snapshot of that network read them), into an empty table. */
const SEED = `
  INSERT INTO capacity_stock (sku, node, units, sequence, revision)
  SELECT entry->>'sku', entry->>'node', LEAST(sum((entry->>'units')::bigint), 2147483647)::integer, 0, 1
  FROM capacity_network, jsonb_array_elements(COALESCE(document->'stock', '[]'::jsonb)) AS entry
  WHERE NOT EXISTS (SELECT 1 FROM capacity_stock)
  GROUP BY 1, 2
  ON CONFLICT (sku, node) DO NOTHING`

const WATERMARK = `SELECT pg_snapshot_xmin(pg_current_snapshot())::text`

const columnsOf = (rows: ReadonlyArray<ReadonlyArray<unknown>>, operation: string): Effect.Effect<StockColumns, StoreError> => {
  const nodes: Array<string> = []
  const skus: Array<string> = []
  const units = new Uint32Array(rows.length)
  const revisions = new Uint32Array(rows.length)
  for (let i = 0; i < rows.length; i++) {
    const [node, sku, unit, revision] = rows[i]!
    if (typeof node !== "string" || typeof sku !== "string" || typeof unit !== "number" || typeof revision !== "number") {
      return Effect.fail(new StoreError({ operation, message: `unexpected stock row ${JSON.stringify(rows[i])}` }))
    }
    nodes.push(node)
    skus.push(sku)
    units[i] = unit
    revisions[i] = revision
  }
  return Effect.succeed({ nodes, skus, units, revisions })
}

const textOf = (rows: ReadonlyArray<ReadonlyArray<unknown>>, operation: string): Effect.Effect<string, StoreError> => {
  const value = rows[0]?.[0]
  return typeof value === "string"
    ? Effect.succeed(value)
    : Effect.fail(new StoreError({ operation, message: `expected a transaction id, got ${JSON.stringify(value)}` }))
}

/** capacity_stock (StockSchema.ts): the feed's batches, a network's stock, and what replicas load. */
export class StockRepository extends Context.Service<StockRepository>()("@retail/store/StockRepository", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const changed = (statement: string, operation: string) => (sets: StockSets, ...more: ReadonlyArray<string>) =>
      sql.unsafe(statement, [column(sets.nodes, TEXT), column(sets.skus, TEXT), column(sets.units, INT4), ...more]).values.pipe(
        Effect.flatMap((values) =>
          Effect.map(columnsOf(values, operation), (rows): StockWritten => ({
            rows,
            writer: values.length === 0 ? undefined : String(values[0]![4])
          }))
        ),
        storeOperation(operation)
      )

    /** One statement for the whole batch; answers the rows it set, with their new revisions. */
    const applySets = (sequence: number, sets: StockSets) => changed(APPLY_SETS, "applyStockSets")(sets, String(sequence))

    /** A network document's stock (summed per node and SKU by the caller); answers the rows it changed. */
    const setUnits = changed(SET_UNITS, "setStockUnits")

    const seedFromNetwork = sql.unsafe(SEED).pipe(storeOperation("seedStock"), Effect.asVoid)

    const watermark = sql.unsafe(WATERMARK).values.pipe(Effect.flatMap((rows) => textOf(rows, "stockWatermark")), storeOperation("stockWatermark"))

    /** Up to `limit` rows after (sku, node) in key order: a replica loads the table chunk by chunk. */
    const loadChunk = (after: { readonly sku: string; readonly node: string } | undefined, limit: number) =>
      (after === undefined
        ? sql.unsafe(`SELECT node, sku, units, revision FROM capacity_stock ORDER BY sku, node LIMIT $1`, [limit])
        : sql.unsafe(
          `SELECT node, sku, units, revision FROM capacity_stock WHERE (sku, node) > ($1, $2) ORDER BY sku, node LIMIT $3`,
          [after.sku, after.node, limit]
        )).values.pipe(Effect.flatMap((rows) => columnsOf(rows, "loadStock")), storeOperation("loadStock"))

    /**
     * The transactions at or after `since` (those that had not ended when it was taken, and every
     * later one) whose rows the table still holds: an index-only read, no row is sent.
     */
    const writersSince = (since: string) =>
      sql.unsafe(`SELECT DISTINCT writer::text FROM capacity_stock WHERE writer >= $1::xid8`, [since]).values.pipe(
        Effect.map((rows) => rows.map((row) => String(row[0]))),
        storeOperation("stockWritersSince")
      )

    /** Up to `limit` rows last written by transaction `writer`, after `after` in key order. */
    const loadWrittenBy = (writer: string, after: { readonly sku: string; readonly node: string } | undefined, limit: number) =>
      (after === undefined
        ? sql.unsafe(`SELECT node, sku, units, revision FROM capacity_stock WHERE writer = $1::xid8 ORDER BY sku, node LIMIT $2`, [writer, limit])
        : sql.unsafe(
          `SELECT node, sku, units, revision FROM capacity_stock WHERE writer = $1::xid8 AND (sku, node) > ($2, $3) ORDER BY sku, node LIMIT $4`,
          [writer, after.sku, after.node, limit]
        )).values.pipe(Effect.flatMap((rows) => columnsOf(rows, "loadStockWrittenBy")), storeOperation("loadStockWrittenBy"))

    return { applySets, setUnits, seedFromNetwork, watermark, loadChunk, writersSince, loadWrittenBy } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
