import { OID } from "@effect/sql-pg/PgTypes"
import type { Product } from "@retail/domain"

const { float8: FLOAT8, text: TEXT } = OID

export interface Column {
  readonly name: string
  readonly oid: number
  /** The SQL type the array element is read as (the column's own when it differs from the array's). */
  readonly cast?: string
  readonly value: (product: Product) => string | number | null
}

const text = (name: string, value: (product: Product) => string | null | undefined): Column => ({ name, oid: TEXT, value: (p) => value(p) ?? null })
const float = (name: string, value: (product: Product) => number | null | undefined): Column => ({ name, oid: FLOAT8, value: (p) => value(p) ?? null })

/**
 * The products table's columns in order. conversionFactor goes as float8 (exact for every safe
 * integer) and becomes bigint; dateUpdate goes as its `YYYY-MM-DD HH:mm:ss` text.
 */
export const PRODUCT_COLUMNS: ReadonlyArray<Column> = [
  text("product_code", (p) => p.productCode),
  text("sku_code", (p) => p.skuCode),
  text("ean_code", (p) => p.eanCode),
  text("description", (p) => p.description),
  float("price", (p) => p.price),
  float("length", (p) => p.length),
  float("width", (p) => p.width),
  float("height", (p) => p.height),
  float("weight", (p) => p.weight),
  text("product_type", (p) => p.productType),
  text("dispatch_type", (p) => p.dispatchType),
  text("unit_measurement", (p) => p.unitMeasurement),
  text("united_nations_code", (p) => p.unitedNationsCode),
  text("hierarchy_code", (p) => p.hierarchyCode),
  text("company_code", (p) => p.companyCode),
  text("tax_sale", (p) => p.taxSale),
  float("tax_selective", (p) => p.taxSelective),
  float("sales_tax", (p) => p.salesTax),
  text("product_pmm_status", (p) => p.productPmmStatus),
  { ...text("date_update", (p) => p.dateUpdate), cast: "timestamp" },
  text("is_ecommerce", (p) => p.isEcommerce),
  text("measurable", (p) => p.measurable),
  text("sku_code_platform", (p) => p.skuCodePlatform),
  { ...float("conversion_factor", (p) => p.conversionFactor), cast: "bigint" }
]
