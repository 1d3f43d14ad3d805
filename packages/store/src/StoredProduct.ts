import { DispatchTypes, type Product, UnitMeasurements } from "@retail/domain"
import { Effect, Option, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import { findChildren } from "./ProductChildren.ts"

const Text = Schema.String
const MaybeText = Schema.NullOr(Schema.String)
const MaybeNumber = Schema.NullOr(Schema.Number)
const TrueFalse = Schema.Literals(["T", "F"])

const ProductRow = Schema.Struct({
  productCode: Text,
  skuCode: Text,
  eanCode: Text,
  description: Text,
  price: Schema.Number,
  length: Schema.Number,
  width: Schema.Number,
  height: Schema.Number,
  weight: Schema.Number,
  productType: Text,
  dispatchType: Schema.NullOr(Schema.Literals(DispatchTypes)),
  unitMeasurement: Schema.Literals(UnitMeasurements),
  unitedNationsCode: Text,
  hierarchyCode: Text,
  companyCode: MaybeText,
  taxSale: TrueFalse,
  taxSelective: MaybeNumber,
  salesTax: MaybeNumber,
  productPmmStatus: Text,
  dateUpdate: Text,
  isEcommerce: TrueFalse,
  measurable: TrueFalse,
  skuCodePlatform: MaybeText,
  conversionFactor: Schema.Number
})

const decodeRows = Schema.decodeUnknownEffect(Schema.Array(ProductRow))

/**
 * A stored product read back from its columns and child rows. The store keeps values, not the
 * JSON they were spelt in: a nullable field sent absent reads back as null (docs/products.md).
 */
export const findStoredProduct = (sql: SqlClient.SqlClient, company: string, productCode: string) =>
  Effect.gen(function*() {
    const [row] = yield* sql`
      SELECT product_code AS "productCode", sku_code AS "skuCode", ean_code AS "eanCode", description, price, length,
        width, height, weight, product_type AS "productType", dispatch_type AS "dispatchType",
        unit_measurement AS "unitMeasurement", united_nations_code AS "unitedNationsCode", hierarchy_code AS "hierarchyCode",
        company_code AS "companyCode", tax_sale AS "taxSale", tax_selective AS "taxSelective", sales_tax AS "salesTax",
        product_pmm_status AS "productPmmStatus", to_char(date_update, 'YYYY-MM-DD HH24:MI:SS') AS "dateUpdate",
        is_ecommerce AS "isEcommerce", measurable, sku_code_platform AS "skuCodePlatform",
        conversion_factor::float8 AS "conversionFactor"
      FROM products WHERE company = ${company} AND product_code = ${productCode}
    `.pipe(Effect.flatMap(decodeRows))
    if (row === undefined) return Option.none<Product>()
    const children = yield* findChildren(sql, company, productCode)
    return Option.some<Product>({ ...row, barcodes: children.barcodes, hierarchies: children.hierarchies, lstAttributes: children.attributes })
  })
