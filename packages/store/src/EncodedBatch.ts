import { PgTypes } from "@effect/sql-pg"
import type { Product } from "@retail/domain"
import { Result } from "effect"
import { BinaryArrayWriter } from "./BinaryArrayWriter.ts"
import { PRODUCT_COLUMNS, latestPerCode } from "./ProductUpsert.ts"

const { float8: FLOAT8, int4: INT4, text: TEXT } = PgTypes.OID

/**
 * A batch of products as the binary column arrays the write statements bind (docs/performance.md,
 * "Batches encoded at intake"): encoded once at intake, so a worker hands the bytes to PostgreSQL
 * with no JSON.parse, no product objects and no encoding of its own.
 *
 * Layout: the 4 bytes MAGIC, an int32 length and the header's JSON, an int32 column count, then
 * each column as an int32 length and a PostgreSQL binary array: the products' columns in
 * PRODUCT_COLUMNS' order (one product per code, the latest dateUpdate kept, sorted by code), the
 * 19 child columns of INSERT_CHILDREN, and last the SKU of every product sent (for the load's
 * error list when the batch is dead-lettered).
 */
export const MAGIC = Uint8Array.of(0x00, 0x50, 0x43, 0x31) // "\0PC1": never the first byte of a JSON entry

export interface BatchHeader {
  readonly processCode: string
  readonly company: string
  readonly batchNo: number
  /** Products sent in the batch, before one per code was kept: what the load counts as persisted. */
  readonly products: number
}

export const CHILD_COLUMN_TYPES: ReadonlyArray<number> = [
  TEXT, INT4, TEXT, TEXT,
  TEXT, INT4, TEXT, INT4, TEXT, TEXT, TEXT, TEXT,
  TEXT, INT4, TEXT, TEXT, TEXT, TEXT, TEXT
]
export const COLUMN_TYPES: ReadonlyArray<number> = [...PRODUCT_COLUMNS.map((c) => c.oid), ...CHILD_COLUMN_TYPES, TEXT]

/** One column of a child table: its value for each child row of each product, in product then position order. */
const childColumn = <C, V>(
  out: BinaryArrayWriter,
  products: ReadonlyArray<Product>,
  children: (product: Product) => ReadonlyArray<C>,
  count: number,
  oid: number,
  value: (child: C, product: Product, position: number) => V | null | undefined,
  write: (v: V) => void
) => {
  const lengthAt = out.reserve()
  let p = 0
  let position = 0
  let list = products.length === 0 ? [] : children(products[0]!)
  out.array(oid, count, () => {
    while (position >= list.length) {
      p++
      position = 0
      list = children(products[p]!)
    }
    return value(list[position]!, products[p]!, position++)
  }, write)
  out.fill(lengthAt, out.offset - lengthAt - 4)
}

const writeChildren = (out: BinaryArrayWriter, products: ReadonlyArray<Product>): void => {
  let barcodes = 0
  let hierarchies = 0
  let attributes = 0
  for (const product of products) {
    barcodes += product.barcodes.length
    hierarchies += product.hierarchies.length
    attributes += product.lstAttributes.length
  }
  const b = (p: Product) => p.barcodes
  const h = (p: Product) => p.hierarchies
  const a = (p: Product) => p.lstAttributes
  childColumn(out, products, b, barcodes, TEXT, (_, p) => p.productCode, out.text)
  childColumn(out, products, b, barcodes, INT4, (_, __, i) => i, out.int4)
  childColumn(out, products, b, barcodes, TEXT, (c) => c.eanCode, out.text)
  childColumn(out, products, b, barcodes, TEXT, (c) => c.indicator, out.text)
  childColumn(out, products, h, hierarchies, TEXT, (_, p) => p.productCode, out.text)
  childColumn(out, products, h, hierarchies, INT4, (_, __, i) => i, out.int4)
  childColumn(out, products, h, hierarchies, TEXT, (c) => c.hierarchyCode, out.text)
  childColumn(out, products, h, hierarchies, INT4, (c) => c.hierarchyLevel, out.int4)
  childColumn(out, products, h, hierarchies, TEXT, (c) => c.hierarchyParent, out.text)
  childColumn(out, products, h, hierarchies, TEXT, (c) => c.hierarchyName, out.text)
  childColumn(out, products, h, hierarchies, TEXT, (c) => c.hierarchyDescription, out.text)
  childColumn(out, products, h, hierarchies, TEXT, (c) => c.hierarchyBreadcrumb, out.text)
  childColumn(out, products, a, attributes, TEXT, (_, p) => p.productCode, out.text)
  childColumn(out, products, a, attributes, INT4, (_, __, i) => i, out.int4)
  childColumn(out, products, a, attributes, TEXT, (c) => c.attributeType, out.text)
  childColumn(out, products, a, attributes, TEXT, (c) => c.parentAttributeCode, out.text)
  childColumn(out, products, a, attributes, TEXT, (c) => c.attributeCode, out.text)
  childColumn(out, products, a, attributes, TEXT, (c) => c.attributeDescription, out.text)
  childColumn(out, products, a, attributes, TEXT, (c) => c.attributeDescriptionDetail, out.text)
}

/** Encodes a batch (products validated) into `allocate`d memory. */
export const encodeBatch = (
  header: Omit<BatchHeader, "products">,
  sent: ReadonlyArray<Product>,
  out: BinaryArrayWriter = new BinaryArrayWriter(),
  allocate?: (length: number) => Uint8Array
): Uint8Array => {
  const products = latestPerCode(sent)
  out.raw(MAGIC)
  const headerJson = Buffer.from(JSON.stringify({ ...header, products: sent.length }), "utf8")
  out.int32(headerJson.length)
  out.raw(headerJson)
  out.int32(COLUMN_TYPES.length)
  for (const column of PRODUCT_COLUMNS) {
    const lengthAt = out.reserve()
    if (column.oid === FLOAT8) out.array(FLOAT8, products.length, (i) => column.value(products[i]!) as number | null, out.float8)
    else out.array(TEXT, products.length, (i) => column.value(products[i]!) as string | null, out.text)
    out.fill(lengthAt, out.offset - lengthAt - 4)
  }
  writeChildren(out, products)
  const lengthAt = out.reserve()
  out.array(TEXT, sent.length, (i) => sent[i]!.skuCode, out.text)
  out.fill(lengthAt, out.offset - lengthAt - 4)
  return out.take(allocate)
}

export const isEncodedBatch = (entry: Uint8Array): boolean =>
  entry.length >= 4 && entry[0] === MAGIC[0] && entry[1] === MAGIC[1] && entry[2] === MAGIC[2] && entry[3] === MAGIC[3]

export interface DecodedBatch {
  readonly header: BatchHeader
  /** Views of the entry: PRODUCT_COLUMNS, then the child columns, then the SKUs sent. */
  readonly columns: ReadonlyArray<Uint8Array>
}

const readInt32 = (bytes: Uint8Array, at: number): number => ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!)

const isHeader = (value: unknown): value is BatchHeader => {
  if (typeof value !== "object" || value === null) return false
  const h = value as Record<string, unknown>
  return typeof h["processCode"] === "string" && typeof h["company"] === "string" && Number.isSafeInteger(h["batchNo"]) &&
    Number.isSafeInteger(h["products"])
}

/**
 * The header and column views of an encoded entry, its framing checked: every length within the
 * entry, each column a one-dimensional array (or an empty one) of the type its place expects.
 * The elements are left to PostgreSQL, which checks them as it reads them.
 */
export const decodeEncodedBatch = (entry: Uint8Array): Result.Result<DecodedBatch, string> => {
  if (!isEncodedBatch(entry)) return Result.fail("not an encoded batch")
  let at = 4
  const take = (length: number): Uint8Array | undefined => {
    if (length < 0 || at + length > entry.length) return undefined
    const view = entry.subarray(at, at + length)
    at += length
    return view
  }
  const int32 = (): number | undefined => {
    if (at + 4 > entry.length) return undefined
    const value = readInt32(entry, at)
    at += 4
    return value
  }
  const headerBytes = take(int32() ?? -1)
  if (headerBytes === undefined) return Result.fail("truncated header")
  let header: unknown
  try {
    header = JSON.parse(Buffer.from(headerBytes.buffer, headerBytes.byteOffset, headerBytes.length).toString("utf8"))
  } catch {
    return Result.fail("header is not JSON")
  }
  if (!isHeader(header)) return Result.fail("header lacks processCode, company, batchNo or products")
  if (int32() !== COLUMN_TYPES.length) return Result.fail(`expected ${COLUMN_TYPES.length} columns`)
  const columns: Array<Uint8Array> = []
  for (const oid of COLUMN_TYPES) {
    const column = take(int32() ?? -1)
    if (column === undefined || column.length < 12) return Result.fail(`truncated column ${columns.length}`)
    const dimensions = readInt32(column, 0)
    if (dimensions !== 0 && dimensions !== 1) return Result.fail(`column ${columns.length} is not a one-dimensional array`)
    if (readInt32(column, 8) !== oid) return Result.fail(`column ${columns.length} has element type ${readInt32(column, 8)}, expected ${oid}`)
    columns.push(column)
  }
  if (at !== entry.length) return Result.fail("trailing bytes after the columns")
  return Result.succeed({ header, columns })
}

/** How many elements a column holds. */
export const columnLength = (column: Uint8Array): number => (readInt32(column, 0) === 0 ? 0 : readInt32(column, 12))

/**
 * The SKUs of every product sent (the last column), for the load's error list: one per product the
 * header counts, so that a dead batch's products are all counted as failed even when the column
 * cannot be read (PostgreSQL refused it, and this reader agrees): those are named UNREADABLE_SKU.
 */
export const sentSkus = (batch: DecodedBatch): ReadonlyArray<string> => {
  const decoded = PgTypes.decode(batch.columns[batch.columns.length - 1]!, PgTypes.OID.textArray, 1)
  const skus = Result.isSuccess(decoded) && Array.isArray(decoded.success) ? decoded.success : []
  return skus.length === batch.header.products && skus.every((sku) => typeof sku === "string")
    ? skus
    : Array.from({ length: batch.header.products }, () => UNREADABLE_SKU)
}

export const UNREADABLE_SKU = "(unreadable)"
