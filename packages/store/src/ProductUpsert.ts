import { PgTypes } from "@effect/sql-pg"
import { compareDateTimeText, type Product } from "@retail/domain"
import { Effect, Result, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import { CHILD_COLUMNS, CHILD_TABLES } from "./ChildColumns.ts"
import { PRODUCT_COLUMNS } from "./ProductColumns.ts"
import { preEncodedParameter } from "./PreEncodedArrays.ts"

export { PRODUCT_COLUMNS } from "./ProductColumns.ts"

/** One product per code, the latest dateUpdate winning (the later one on a tie), sorted by code so concurrent batches lock rows in the same order. */
export const latestPerCode = (products: ReadonlyArray<Product>): ReadonlyArray<Product> => {
  const byCode = new Map<string, Product>()
  for (const product of products) {
    const seen = byCode.get(product.productCode)
    if (seen === undefined || compareDateTimeText(product.dateUpdate, seen.dateUpdate) >= 0) byCode.set(product.productCode, product)
  }
  return Array.from(byCode.values()).sort((a, b) => (a.productCode < b.productCode ? -1 : a.productCode > b.productCode ? 1 : 0))
}

const { float8: FLOAT8, float8Array: FLOAT8_ARRAY, int4: INT4, int4Array: INT4_ARRAY, text: TEXT, textArray: TEXT_ARRAY } = PgTypes.OID

/**
 * A column of the batch as one binary array parameter: PostgreSQL reads it without parsing text or
 * JSON (binary float8 and int4, text as bytes). Every value was validated, so encoding cannot fail.
 */
const column = (values: ReadonlyArray<string | number | null>, oid: number): PgTypes.Parameter =>
  Result.getOrThrow(PgTypes.array(values, oid))

const names = PRODUCT_COLUMNS.map((c) => c.name)
const selected = PRODUCT_COLUMNS.map((c) => (c.cast === undefined ? c.name : `${c.name}::${c.cast}`))
const params = (from: number, count: number) => Array.from({ length: count }, (_, i) => `$${from + i}`).join(", ")

/**
 * $1 company, $2 process code, then one array per column. A stored product with a newer
 * date_update is left alone. `inserted` tells a new row (xmax = 0) from one that was updated:
 * only an updated product has children to remove. Were it ever wrong the safe way round, the
 * children's primary keys would refuse the insert and the batch would fail, never mix children.
 */
const UPSERT_PRODUCTS = `
  INSERT INTO products AS t (company, ${names.join(", ")}, process_code, updated_at)
  SELECT $1, ${selected.join(", ")}, $2::uuid, now()
  FROM unnest(${params(3, names.length)}) WITH ORDINALITY AS u(${names.join(", ")}, n)
  ORDER BY n
  ON CONFLICT (company, product_code) DO UPDATE SET
    ${names.slice(1).map((name) => `${name} = EXCLUDED.${name}`).join(", ")},
    process_code = EXCLUDED.process_code, updated_at = now()
  WHERE t.date_update <= EXCLUDED.date_update
  RETURNING t.product_code AS "productCode", (t.xmax = 0) AS inserted`

/** $1 company, $2 the codes of the products updated: their children are replaced, not merged. */
const DELETE_CHILDREN = `
  WITH barcodes AS (
    DELETE FROM product_barcodes WHERE company = $1 AND product_code = ANY($2::text[])
  ), hierarchies AS (
    DELETE FROM product_hierarchies WHERE company = $1 AND product_code = ANY($2::text[])
  )
  DELETE FROM product_attributes WHERE company = $1 AND product_code = ANY($2::text[])`

/**
 * $1 company, then the arrays of CHILD_TABLES' columns (product_code and position first in each);
 * with `onlyWritten`, the codes of the products written after them: the children of the others are left out.
 */
const insertChildren = (onlyWritten: boolean) => {
  const writtenCodes = `$${2 + CHILD_COLUMNS.length}::text[]`
  let next = 2
  const inserts = CHILD_TABLES.map(({ table, columns }) => {
    const names = columns.map((c) => c.name).join(", ")
    const arrays = columns.map(() => `$${next++}`).join(", ")
    const where = onlyWritten ? `WHERE c.product_code IN (SELECT unnest(${writtenCodes}))` : ""
    return `INSERT INTO ${table} (company, ${names}) SELECT $1, c.* FROM unnest(${arrays}) AS c(${names}) ${where}`
  })
  const last = inserts.pop()!
  return `WITH ${inserts.map((insert, i) => `children${i} AS (${insert})`).join(", ")} ${last}`
}
const INSERT_CHILDREN = insertChildren(false)
const INSERT_WRITTEN_CHILDREN = insertChildren(true)

/** The child rows of some products, column by column (CHILD_COLUMNS). */
const childColumns = (products: ReadonlyArray<Product>): ReadonlyArray<PgTypes.Parameter> =>
  CHILD_COLUMNS.map((c) => {
    const values: Array<string | number | null> = []
    for (const product of products) {
      const rows = c.rows(product)
      for (let position = 0; position < rows; position++) values.push(c.value(product, position))
    }
    return column(values, c.oid)
  })

const decodeWritten = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ productCode: Schema.String, inserted: Schema.Boolean })))

/**
 * Upserts products (one code each) and replaces the children of those written, inside the caller's
 * transaction: products first (the row locks order concurrent writers of a product), then the
 * children of updated products are deleted and every written product's children inserted. Three
 * statements at most, each column bound as one binary array. Returns how many products were written.
 */
export const upsertProducts = (
  sql: SqlClient.SqlClient,
  company: string,
  processCode: string,
  products: ReadonlyArray<Product>
) =>
  Effect.gen(function*() {
    const written = yield* sql.unsafe(UPSERT_PRODUCTS, [
      company,
      processCode,
      ...PRODUCT_COLUMNS.map((c) => column(products.map(c.value), c.oid))
    ]).pipe(Effect.flatMap(decodeWritten))
    if (written.length === 0) return 0
    const updated = written.filter((row) => !row.inserted).map((row) => row.productCode)
    if (updated.length > 0) yield* sql.unsafe(DELETE_CHILDREN, [company, column(updated, TEXT)])
    const codes = new Set(written.map((row) => row.productCode))
    yield* sql.unsafe(INSERT_CHILDREN, [company, ...childColumns(products.filter((p) => codes.has(p.productCode)))])
    return written.length
  })

const ARRAY_OF: Readonly<Record<number, number>> = { [TEXT]: TEXT_ARRAY, [FLOAT8]: FLOAT8_ARRAY, [INT4]: INT4_ARRAY }
const preEncoded = (elementOid: number, bytes: Uint8Array) => preEncodedParameter(ARRAY_OF[elementOid]!, bytes)

/**
 * As `upsertProducts`, for a batch encoded at intake (EncodedBatch.ts): the product columns
 * (`products` of them, one per code, sorted by code) and the child columns are bound as they are.
 * The children of products left alone (a newer one was stored) are filtered out in SQL.
 */
export const upsertEncoded = (
  sql: SqlClient.SqlClient,
  company: string,
  processCode: string,
  products: number,
  productColumns: ReadonlyArray<Uint8Array>,
  childColumns: ReadonlyArray<{ readonly oid: number; readonly bytes: Uint8Array }>
) =>
  Effect.gen(function*() {
    const written = yield* sql.unsafe(UPSERT_PRODUCTS, [
      company,
      processCode,
      ...PRODUCT_COLUMNS.map((c, i) => preEncoded(c.oid, productColumns[i]!))
    ]).pipe(Effect.flatMap(decodeWritten))
    if (written.length === 0) return 0
    const updated = written.filter((row) => !row.inserted).map((row) => row.productCode)
    if (updated.length > 0) yield* sql.unsafe(DELETE_CHILDREN, [company, column(updated, TEXT)])
    const children = childColumns.map((c) => preEncoded(c.oid, c.bytes))
    yield* written.length === products
      ? sql.unsafe(INSERT_CHILDREN, [company, ...children])
      : sql.unsafe(INSERT_WRITTEN_CHILDREN, [company, ...children, column(written.map((row) => row.productCode), TEXT)])
    return written.length
  })
