import type { Product } from "@retail/domain"
import type { SqlClient } from "effect/sql"

/*
 * The statement persistBatch ran before issue 21, kept as the baseline the new write path is
 * measured against in the same run (benchmarks/src/suite/EndToEnd.ts). It writes the product's
 * JSON document beside its columns (products.document, nullable since migration 0008).
 */

/**
 * Upserts products and their children in ONE statement from ONE jsonb parameter. A stored product
 * with a newer date_update is left alone; for the products written, children are upserted by
 * position and positions beyond the new lists are deleted (disjoint rows, so the sibling CTEs never
 * touch the same row). Returns how many products were written.
 */
export const legacyUpsert = (
  sql: SqlClient.SqlClient,
  company: string,
  processCode: string,
  products: ReadonlyArray<Product>
) =>
  sql`
    WITH input AS (
      SELECT p.doc, p.n FROM jsonb_array_elements(${JSON.stringify(products)}::jsonb) WITH ORDINALITY AS p(doc, n)
    ), written AS (
      INSERT INTO products AS t (
        company, product_code, sku_code, ean_code, description, price, length, width, height, weight,
        product_type, dispatch_type, unit_measurement, united_nations_code, hierarchy_code, company_code,
        tax_sale, tax_selective, sales_tax, product_pmm_status, date_update, is_ecommerce, measurable,
        sku_code_platform, conversion_factor, document, process_code, updated_at
      )
      SELECT ${company}, doc->>'productCode', doc->>'skuCode', doc->>'eanCode', doc->>'description',
        (doc->>'price')::float8, (doc->>'length')::float8, (doc->>'width')::float8, (doc->>'height')::float8,
        (doc->>'weight')::float8, doc->>'productType', doc->>'dispatchType', doc->>'unitMeasurement',
        doc->>'unitedNationsCode', doc->>'hierarchyCode', doc->>'companyCode', doc->>'taxSale',
        (doc->>'taxSelective')::float8, (doc->>'salesTax')::float8, doc->>'productPmmStatus',
        (doc->>'dateUpdate')::timestamp, doc->>'isEcommerce', doc->>'measurable', doc->>'skuCodePlatform',
        (doc->>'conversionFactor')::bigint, doc, ${processCode}::uuid, now()
      FROM input ORDER BY n
      ON CONFLICT (company, product_code) DO UPDATE SET
        sku_code = EXCLUDED.sku_code, ean_code = EXCLUDED.ean_code, description = EXCLUDED.description,
        price = EXCLUDED.price, length = EXCLUDED.length, width = EXCLUDED.width, height = EXCLUDED.height,
        weight = EXCLUDED.weight, product_type = EXCLUDED.product_type, dispatch_type = EXCLUDED.dispatch_type,
        unit_measurement = EXCLUDED.unit_measurement, united_nations_code = EXCLUDED.united_nations_code,
        hierarchy_code = EXCLUDED.hierarchy_code, company_code = EXCLUDED.company_code, tax_sale = EXCLUDED.tax_sale,
        tax_selective = EXCLUDED.tax_selective, sales_tax = EXCLUDED.sales_tax,
        product_pmm_status = EXCLUDED.product_pmm_status, date_update = EXCLUDED.date_update,
        is_ecommerce = EXCLUDED.is_ecommerce, measurable = EXCLUDED.measurable,
        sku_code_platform = EXCLUDED.sku_code_platform, conversion_factor = EXCLUDED.conversion_factor,
        document = EXCLUDED.document, process_code = EXCLUDED.process_code, updated_at = now()
      WHERE t.date_update <= EXCLUDED.date_update
      RETURNING t.product_code
    ), written_input AS (
      SELECT w.product_code, i.doc,
        jsonb_array_length(i.doc->'barcodes') AS barcodes_n,
        jsonb_array_length(i.doc->'hierarchies') AS hierarchies_n,
        jsonb_array_length(i.doc->'lstAttributes') AS attributes_n
      FROM written w JOIN input i ON i.doc->>'productCode' = w.product_code
    ), barcodes AS (
      INSERT INTO product_barcodes AS t (company, product_code, position, ean_code, indicator)
      SELECT ${company}, w.product_code, (c.n - 1)::int, c.v->>'eanCode', c.v->>'indicator'
      FROM written_input w, jsonb_array_elements(w.doc->'barcodes') WITH ORDINALITY AS c(v, n)
      ORDER BY w.product_code, c.n
      ON CONFLICT (company, product_code, position) DO UPDATE SET
        ean_code = EXCLUDED.ean_code, indicator = EXCLUDED.indicator
      RETURNING 1
    ), hierarchies AS (
      INSERT INTO product_hierarchies AS t (
        company, product_code, position, hierarchy_code, hierarchy_level, hierarchy_parent, hierarchy_name,
        hierarchy_description, hierarchy_breadcrumb
      )
      SELECT ${company}, w.product_code, (c.n - 1)::int, c.v->>'hierarchyCode', (c.v->>'hierarchyLevel')::int,
        c.v->>'hierarchyParent', c.v->>'hierarchyName', c.v->>'hierarchyDescription', c.v->>'hierarchyBreadcrumb'
      FROM written_input w, jsonb_array_elements(w.doc->'hierarchies') WITH ORDINALITY AS c(v, n)
      ORDER BY w.product_code, c.n
      ON CONFLICT (company, product_code, position) DO UPDATE SET
        hierarchy_code = EXCLUDED.hierarchy_code, hierarchy_level = EXCLUDED.hierarchy_level,
        hierarchy_parent = EXCLUDED.hierarchy_parent, hierarchy_name = EXCLUDED.hierarchy_name,
        hierarchy_description = EXCLUDED.hierarchy_description, hierarchy_breadcrumb = EXCLUDED.hierarchy_breadcrumb
      RETURNING 1
    ), attributes AS (
      INSERT INTO product_attributes AS t (
        company, product_code, position, attribute_type, parent_attribute_code, attribute_code,
        attribute_description, attribute_description_detail
      )
      SELECT ${company}, w.product_code, (c.n - 1)::int, c.v->>'attributeType', c.v->>'parentAttributeCode',
        c.v->>'attributeCode', c.v->>'attributeDescription', c.v->>'attributeDescriptionDetail'
      FROM written_input w, jsonb_array_elements(w.doc->'lstAttributes') WITH ORDINALITY AS c(v, n)
      ORDER BY w.product_code, c.n
      ON CONFLICT (company, product_code, position) DO UPDATE SET
        attribute_type = EXCLUDED.attribute_type, parent_attribute_code = EXCLUDED.parent_attribute_code,
        attribute_code = EXCLUDED.attribute_code, attribute_description = EXCLUDED.attribute_description,
        attribute_description_detail = EXCLUDED.attribute_description_detail
      RETURNING 1
    ), trim_barcodes AS (
      DELETE FROM product_barcodes t USING written_input w
      WHERE t.company = ${company} AND t.product_code = w.product_code AND t.position >= w.barcodes_n
      RETURNING 1
    ), trim_hierarchies AS (
      DELETE FROM product_hierarchies t USING written_input w
      WHERE t.company = ${company} AND t.product_code = w.product_code AND t.position >= w.hierarchies_n
      RETURNING 1
    ), trim_attributes AS (
      DELETE FROM product_attributes t USING written_input w
      WHERE t.company = ${company} AND t.product_code = w.product_code AND t.position >= w.attributes_n
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM written)::int AS written
  `
