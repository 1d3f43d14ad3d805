import type { Attribute, Barcode, Hierarchy } from "@retail/domain"
import { Effect, Schema } from "effect"
import type { SqlClient } from "effect/sql"

/** A product's child rows read back from their relational columns, in position order. */
export interface ProductChildren {
  readonly barcodes: ReadonlyArray<Barcode>
  readonly hierarchies: ReadonlyArray<Hierarchy>
  readonly attributes: ReadonlyArray<Attribute>
}

const Text = Schema.String
const MaybeText = Schema.NullOr(Schema.String)

const BarcodeRow = Schema.Struct({ productCode: Text, eanCode: Text, indicator: Text })
const HierarchyRow = Schema.Struct({
  hierarchyCode: Text,
  hierarchyLevel: Schema.Number,
  hierarchyParent: MaybeText,
  hierarchyName: MaybeText,
  hierarchyDescription: MaybeText,
  hierarchyBreadcrumb: MaybeText
})
const AttributeRow = Schema.Struct({
  attributeType: Text,
  parentAttributeCode: Text,
  attributeCode: Text,
  attributeDescription: Text,
  productCode: Text,
  attributeDescriptionDetail: MaybeText
})

const decodeBarcodes = Schema.decodeUnknownEffect(Schema.Array(BarcodeRow))
const decodeHierarchies = Schema.decodeUnknownEffect(Schema.Array(HierarchyRow))
const decodeAttributes = Schema.decodeUnknownEffect(Schema.Array(AttributeRow))

/** A column cannot tell an absent optional field from null: absent wins, except for the nullable breadcrumb. */
const present = <K extends string>(key: K, value: string | null): { readonly [P in K]?: string } =>
  value === null ? {} : ({ [key]: value } as { readonly [P in K]: string })

export const findChildren = (sql: SqlClient.SqlClient, company: string, productCode: string) =>
  Effect.all({
    barcodes: sql`
      SELECT product_code AS "productCode", ean_code AS "eanCode", indicator FROM product_barcodes
      WHERE company = ${company} AND product_code = ${productCode} ORDER BY position
    `.pipe(Effect.flatMap(decodeBarcodes)),
    hierarchies: sql`
      SELECT hierarchy_code AS "hierarchyCode", hierarchy_level AS "hierarchyLevel", hierarchy_parent AS "hierarchyParent",
        hierarchy_name AS "hierarchyName", hierarchy_description AS "hierarchyDescription",
        hierarchy_breadcrumb AS "hierarchyBreadcrumb"
      FROM product_hierarchies WHERE company = ${company} AND product_code = ${productCode} ORDER BY position
    `.pipe(
      Effect.flatMap(decodeHierarchies),
      Effect.map((rows) =>
        rows.map((row): Hierarchy => ({
          hierarchyCode: row.hierarchyCode,
          hierarchyLevel: row.hierarchyLevel,
          ...present("hierarchyParent", row.hierarchyParent),
          ...present("hierarchyName", row.hierarchyName),
          ...present("hierarchyDescription", row.hierarchyDescription),
          hierarchyBreadcrumb: row.hierarchyBreadcrumb
        }))
      )
    ),
    attributes: sql`
      SELECT attribute_type AS "attributeType", parent_attribute_code AS "parentAttributeCode",
        attribute_code AS "attributeCode", attribute_description AS "attributeDescription", product_code AS "productCode",
        attribute_description_detail AS "attributeDescriptionDetail"
      FROM product_attributes WHERE company = ${company} AND product_code = ${productCode} ORDER BY position
    `.pipe(
      Effect.flatMap(decodeAttributes),
      Effect.map((rows) =>
        rows.map((row): Attribute => ({
          attributeType: row.attributeType,
          parentAttributeCode: row.parentAttributeCode,
          attributeCode: row.attributeCode,
          attributeDescription: row.attributeDescription,
          productCode: row.productCode,
          ...present("attributeDescriptionDetail", row.attributeDescriptionDetail)
        }))
      )
    )
  })

export interface RowCounts {
  readonly products: number
  readonly barcodes: number
  readonly hierarchies: number
  readonly attributes: number
}

const decodeCounts = Schema.decodeUnknownEffect(
  Schema.Tuple([Schema.Struct({ products: Schema.Number, barcodes: Schema.Number, hierarchies: Schema.Number, attributes: Schema.Number })])
)

/** How many product and child rows a company has. */
export const countRows = (sql: SqlClient.SqlClient, company: string) =>
  sql`
    SELECT
      (SELECT count(*) FROM products WHERE company = ${company})::int AS products,
      (SELECT count(*) FROM product_barcodes WHERE company = ${company})::int AS barcodes,
      (SELECT count(*) FROM product_hierarchies WHERE company = ${company})::int AS hierarchies,
      (SELECT count(*) FROM product_attributes WHERE company = ${company})::int AS attributes
  `.pipe(
    Effect.flatMap(decodeCounts),
    Effect.map(([counts]): RowCounts => counts)
  )
