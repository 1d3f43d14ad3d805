import { OID } from "@effect/sql-pg/PgTypes"
import type { Attribute, Barcode, Hierarchy, Product } from "@retail/domain"

const { int4: INT4, text: TEXT } = OID

/**
 * One column of a child table, as the write statements bind it: an array with one element per
 * child row of each product, in product then position order.
 */
export interface ChildColumn {
  readonly name: string
  readonly oid: number
  /** How many child rows of this table `product` has. */
  readonly rows: (product: Product) => number
  /** The column's value in `product`'s child row at `position`. */
  readonly value: (product: Product, position: number) => string | number | null
}

export interface ChildTable {
  readonly table: string
  /** product_code and position first, then the child's own fields. */
  readonly columns: ReadonlyArray<ChildColumn>
}

type Field<C> = readonly [name: string, oid: number, value: (child: C) => string | number | null | undefined]

const childTable = <C>(table: string, children: (product: Product) => ReadonlyArray<C>, fields: ReadonlyArray<Field<C>>): ChildTable => {
  const rows = (product: Product) => children(product).length
  return {
    table,
    columns: [
      { name: "product_code", oid: TEXT, rows, value: (product) => product.productCode },
      { name: "position", oid: INT4, rows, value: (_, position) => position },
      ...fields.map(([name, oid, value]): ChildColumn => ({ name, oid, rows, value: (product, position) => value(children(product)[position]!) ?? null }))
    ]
  }
}

/**
 * The child tables and their columns, the one place they are laid out: the JSON path's arrays
 * (`upsertProducts`), the columns encoded at intake (EncodedBatch.ts, EncodedRows.ts) and the
 * INSERT statements (`insertChildren`) all follow it.
 */
export const CHILD_TABLES: ReadonlyArray<ChildTable> = [
  childTable<Barcode>("product_barcodes", (p) => p.barcodes, [
    ["ean_code", TEXT, (c) => c.eanCode],
    ["indicator", TEXT, (c) => c.indicator]
  ]),
  childTable<Hierarchy>("product_hierarchies", (p) => p.hierarchies, [
    ["hierarchy_code", TEXT, (c) => c.hierarchyCode],
    ["hierarchy_level", INT4, (c) => c.hierarchyLevel],
    ["hierarchy_parent", TEXT, (c) => c.hierarchyParent],
    ["hierarchy_name", TEXT, (c) => c.hierarchyName],
    ["hierarchy_description", TEXT, (c) => c.hierarchyDescription],
    ["hierarchy_breadcrumb", TEXT, (c) => c.hierarchyBreadcrumb]
  ]),
  childTable<Attribute>("product_attributes", (p) => p.lstAttributes, [
    ["attribute_type", TEXT, (c) => c.attributeType],
    ["parent_attribute_code", TEXT, (c) => c.parentAttributeCode],
    ["attribute_code", TEXT, (c) => c.attributeCode],
    ["attribute_description", TEXT, (c) => c.attributeDescription],
    ["attribute_description_detail", TEXT, (c) => c.attributeDescriptionDetail]
  ])
]

/** Every child table's columns, table after table: the order their arrays are bound in. */
export const CHILD_COLUMNS: ReadonlyArray<ChildColumn> = CHILD_TABLES.flatMap((t) => t.columns)
