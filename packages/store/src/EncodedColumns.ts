import { OID } from "@effect/sql-pg/PgTypes"
import type { Product } from "@retail/domain"
import type { BinaryArrayWriter } from "./BinaryArrayWriter.ts"
import { CHILD_COLUMNS } from "./ChildColumns.ts"
import { PRODUCT_COLUMNS } from "./ProductColumns.ts"

const { float8: FLOAT8, int4: INT4, text: TEXT } = OID

/** A column of an encoded batch: its element type, and the elements a product gives it (one for a product column, one per child row for a child column). */
export interface EncodedColumn {
  readonly oid: number
  readonly rows: (product: Product) => number
  readonly value: (product: Product, position: number) => string | number | null
}

const one = () => 1

/** The SKU of each product sent, last: for the load's error list when the batch is dead-lettered. */
const SKU_COLUMN: EncodedColumn = { oid: TEXT, rows: one, value: (product) => product.skuCode }

/** An encoded batch's columns in order: PRODUCT_COLUMNS, CHILD_COLUMNS, then the SKUs sent. */
export const ENCODED_COLUMNS: ReadonlyArray<EncodedColumn> = [
  ...PRODUCT_COLUMNS.map((c): EncodedColumn => ({ oid: c.oid, rows: one, value: c.value })),
  ...CHILD_COLUMNS,
  SKU_COLUMN
]
export const PRODUCT_COLUMN_COUNT = PRODUCT_COLUMNS.length
export const CHILD_COLUMN_COUNT = CHILD_COLUMNS.length
export const SKU_COLUMN_INDEX = ENCODED_COLUMNS.length - 1
export const COLUMN_TYPES: ReadonlyArray<number> = ENCODED_COLUMNS.map((c) => c.oid)

/** Writes `product`'s elements of `column` (int32 length and bytes each, -1 for NULL); true when one was NULL. */
export const writeElements = (out: BinaryArrayWriter, column: EncodedColumn, product: Product): boolean => {
  const rows = column.rows(product)
  let nulls = false
  for (let position = 0; position < rows; position++) {
    const value = column.value(product, position)
    if (value === null) {
      out.int32(-1)
      nulls = true
    } else if (typeof value === "string") out.text(value)
    else if (column.oid === INT4) out.int4(value)
    else if (column.oid === FLOAT8) out.float8(value)
    else out.text(String(value))
  }
  return nulls
}
