import type { Product } from "@retail/domain"
import { Readable } from "node:stream"
import { pipeline } from "node:stream/promises"
import pg from "pg"
import { from as copyFrom } from "pg-copy-streams"

/**
 * The fastest loading of the same rows PostgreSQL offers for this schema, as issue 21 defines the
 * limit: per batch, one transaction that COPYs the products and their children into temporary
 * staging tables, then one INSERT ... SELECT per table: products upserted with the dateUpdate guard
 * (the children of updated products deleted in the same statement), then the children of the
 * written products inserted. It keeps
 * the store's guarantees on rows (replays, out-of-order dates, children replaced exactly) but none
 * of the load's bookkeeping (batch ledger, counters), so it bounds what the pipeline can reach.
 * Runs on the `pg` driver with pg-copy-streams: @effect/sql-pg has no COPY.
 */

/** COPY's text format: tab-separated, `\N` for null, backslash escapes. */
const cell = (value: string | number | null | undefined): string => {
  if (value === null || value === undefined) return "\\N"
  if (typeof value === "number") return String(value)
  return /[\\\t\n\r]/.test(value)
    ? value.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n").replace(/\r/g, "\\r")
    : value
}
const line = (values: ReadonlyArray<string | number | null | undefined>): string => values.map(cell).join("\t") + "\n"

const PRODUCT_COLUMNS = [
  "product_code text", "sku_code text", "ean_code text", "description text", "price float8", "length float8", "width float8",
  "height float8", "weight float8", "product_type text", "dispatch_type text", "unit_measurement text", "united_nations_code text",
  "hierarchy_code text", "company_code text", "tax_sale text", "tax_selective float8", "sales_tax float8",
  "product_pmm_status text", "date_update timestamp", "is_ecommerce text", "measurable text", "sku_code_platform text",
  "conversion_factor bigint"
]
const productNames = PRODUCT_COLUMNS.map((c) => c.split(" ")[0]!)
const productLine = (p: Product) =>
  line([
    p.productCode, p.skuCode, p.eanCode, p.description, p.price, p.length, p.width, p.height, p.weight, p.productType,
    p.dispatchType, p.unitMeasurement, p.unitedNationsCode, p.hierarchyCode, p.companyCode, p.taxSale, p.taxSelective,
    p.salesTax, p.productPmmStatus, p.dateUpdate, p.isEcommerce, p.measurable, p.skuCodePlatform, p.conversionFactor
  ])

const BARCODES = "product_code, position, ean_code, indicator"
const HIERARCHIES = "product_code, position, hierarchy_code, hierarchy_level, hierarchy_parent, hierarchy_name, hierarchy_description, hierarchy_breadcrumb"
const ATTRIBUTES = "product_code, position, attribute_type, parent_attribute_code, attribute_code, attribute_description, attribute_description_detail"

const STAGING = [
  `CREATE TEMP TABLE IF NOT EXISTS stage_products (${PRODUCT_COLUMNS.join(", ")}) ON COMMIT DELETE ROWS`,
  `CREATE TEMP TABLE IF NOT EXISTS stage_barcodes (product_code text, position int, ean_code text, indicator text) ON COMMIT DELETE ROWS`,
  `CREATE TEMP TABLE IF NOT EXISTS stage_hierarchies (product_code text, position int, hierarchy_code text, hierarchy_level int,
    hierarchy_parent text, hierarchy_name text, hierarchy_description text, hierarchy_breadcrumb text) ON COMMIT DELETE ROWS`,
  `CREATE TEMP TABLE IF NOT EXISTS stage_attributes (product_code text, position int, attribute_type text, parent_attribute_code text,
    attribute_code text, attribute_description text, attribute_description_detail text) ON COMMIT DELETE ROWS`
]

/** $1 company, $2 process code: products upserted under the guard, the children of updated ones cleared; the written codes returned. */
const MERGE_PRODUCTS = `
  WITH written AS (
    INSERT INTO products AS t (company, ${productNames.join(", ")}, process_code, updated_at)
    SELECT $1, ${productNames.join(", ")}, $2::uuid, now() FROM stage_products
    ON CONFLICT (company, product_code) DO UPDATE SET
      ${productNames.slice(1).map((n) => `${n} = EXCLUDED.${n}`).join(", ")}, process_code = EXCLUDED.process_code, updated_at = now()
    WHERE t.date_update <= EXCLUDED.date_update
    RETURNING t.product_code, (t.xmax = 0) AS inserted
  ), clear_barcodes AS (
    DELETE FROM product_barcodes t USING written w WHERE NOT w.inserted AND t.company = $1 AND t.product_code = w.product_code
  ), clear_hierarchies AS (
    DELETE FROM product_hierarchies t USING written w WHERE NOT w.inserted AND t.company = $1 AND t.product_code = w.product_code
  ), clear_attributes AS (
    DELETE FROM product_attributes t USING written w WHERE NOT w.inserted AND t.company = $1 AND t.product_code = w.product_code
  )
  SELECT array_agg(product_code) AS codes FROM written`

/** $1 company, $2 the written codes: their children, after the clearing statement (a sibling CTE could meet the old rows). */
const MERGE_CHILDREN = `
  WITH barcodes AS (
    INSERT INTO product_barcodes (company, ${BARCODES}) SELECT $1, s.* FROM stage_barcodes s WHERE s.product_code = ANY($2::text[])
  ), hierarchies AS (
    INSERT INTO product_hierarchies (company, ${HIERARCHIES}) SELECT $1, s.* FROM stage_hierarchies s WHERE s.product_code = ANY($2::text[])
  )
  INSERT INTO product_attributes (company, ${ATTRIBUTES}) SELECT $1, s.* FROM stage_attributes s WHERE s.product_code = ANY($2::text[])`

const copyIn = (client: pg.PoolClient, table: string, text: string) =>
  pipeline(Readable.from([text]), client.query(copyFrom(`COPY ${table} FROM STDIN`)))

const loadBatch = async (client: pg.PoolClient, company: string, processCode: string, products: ReadonlyArray<Product>) => {
  let rows = "", barcodes = "", hierarchies = "", attributes = ""
  for (const p of products) {
    rows += productLine(p)
    p.barcodes.forEach((b, i) => barcodes += line([p.productCode, i, b.eanCode, b.indicator]))
    p.hierarchies.forEach((h, i) =>
      hierarchies += line([p.productCode, i, h.hierarchyCode, h.hierarchyLevel, h.hierarchyParent, h.hierarchyName, h.hierarchyDescription, h.hierarchyBreadcrumb]))
    p.lstAttributes.forEach((a, i) =>
      attributes += line([p.productCode, i, a.attributeType, a.parentAttributeCode, a.attributeCode, a.attributeDescription, a.attributeDescriptionDetail]))
  }
  await client.query("BEGIN")
  try {
    await copyIn(client, "stage_products", rows)
    await copyIn(client, "stage_barcodes", barcodes)
    await copyIn(client, "stage_hierarchies", hierarchies)
    await copyIn(client, "stage_attributes", attributes)
    const merged = await client.query<{ codes: ReadonlyArray<string> | null }>(MERGE_PRODUCTS, [company, processCode])
    const codes = merged.rows[0]?.codes ?? []
    if (codes.length > 0) await client.query(MERGE_CHILDREN, [company, codes])
    await client.query("COMMIT")
  } catch (error) {
    await client.query("ROLLBACK")
    throw error
  }
}

/**
 * Loads `products` for a new company in batches of `batchSize` (one code each, as the store's
 * batches are after deduplication), `concurrency` transactions at a time; seconds taken.
 */
export const copyLimitSeconds = async (
  url: string,
  company: string,
  products: ReadonlyArray<Product>,
  options: { readonly batchSize: number; readonly concurrency: number }
): Promise<number> => {
  const pool = new pg.Pool({ connectionString: url, max: options.concurrency })
  try {
    const clients = await Promise.all(Array.from({ length: options.concurrency }, () => pool.connect()))
    for (const client of clients) for (const statement of STAGING) await client.query(statement)
    const processCode = crypto.randomUUID()
    let next = 0
    const start = performance.now()
    await Promise.all(clients.map(async (client) => {
      while (next * options.batchSize < products.length) {
        const from = next++ * options.batchSize
        await loadBatch(client, company, processCode, products.slice(from, from + options.batchSize))
      }
    }))
    const seconds = (performance.now() - start) / 1000
    for (const client of clients) client.release()
    return seconds
  } finally {
    await pool.end()
  }
}
