import { PgTypes } from "@effect/sql-pg"
import type { Product } from "@retail/domain"
import { Result } from "effect"
import { BinaryArrayWriter } from "./BinaryArrayWriter.ts"
import { COLUMN_TYPES, ENCODED_COLUMNS, type EncodedColumn, SKU_COLUMN_INDEX, writeElements } from "./EncodedColumns.ts"
import { latestPerCode } from "./ProductUpsert.ts"

export { COLUMN_TYPES } from "./EncodedColumns.ts"

/**
 * A batch of products as the binary column arrays the write statements bind (docs/performance.md,
 * "Batches encoded at intake"): encoded once at intake, so a worker hands the bytes to PostgreSQL
 * with no JSON.parse, no product objects and no encoding of its own.
 *
 * Layout: the 4 bytes MAGIC, an int32 length and the header's JSON, an int32 column count, then
 * each column as an int32 length and a PostgreSQL binary array: the products' columns in
 * PRODUCT_COLUMNS' order (one product per code, the latest dateUpdate kept, sorted by code), the
 * child columns of CHILD_COLUMNS, and last the SKU of every product sent (for the load's
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

/** One column of `products`, as an int32 length and a binary array. */
const writeColumn = (out: BinaryArrayWriter, column: EncodedColumn, products: ReadonlyArray<Product>): void => {
  const lengthAt = out.reserve()
  let count = 0
  for (const product of products) count += column.rows(product)
  const hasNull = out.arrayHeader(column.oid, count)
  let nulls = false
  if (hasNull !== -1) {
    for (const product of products) nulls = writeElements(out, column, product) || nulls
    out.fill(hasNull, nulls ? 1 : 0)
  }
  out.fill(lengthAt, out.offset - lengthAt - 4)
}

/** The start of an entry: MAGIC and the header, the products sent counted in it. */
const writeHeader = (out: BinaryArrayWriter, header: BatchHeader): void => {
  out.raw(MAGIC)
  const headerJson = Buffer.from(JSON.stringify(header), "utf8")
  out.int32(headerJson.length)
  out.raw(headerJson)
}

/** Encodes a batch (products validated) into `allocate`d memory. */
export const encodeBatch = (
  header: Omit<BatchHeader, "products">,
  sent: ReadonlyArray<Product>,
  out: BinaryArrayWriter = new BinaryArrayWriter(),
  allocate?: (length: number) => Uint8Array
): Uint8Array => {
  const products = latestPerCode(sent)
  writeHeader(out, { ...header, products: sent.length })
  out.int32(COLUMN_TYPES.length)
  for (let c = 0; c < SKU_COLUMN_INDEX; c++) writeColumn(out, ENCODED_COLUMNS[c]!, products)
  writeColumn(out, ENCODED_COLUMNS[SKU_COLUMN_INDEX]!, sent)
  return out.take(allocate)
}

/**
 * An entry of `body` (the column count and the columns, as `layoutRows` writes them) under `header`,
 * in `allocate`d memory: the bytes `encodeBatch` would give for the same products.
 */
export const entryOfColumns = (header: BatchHeader, body: Uint8Array, allocate?: (length: number) => Uint8Array): Uint8Array => {
  const out = new BinaryArrayWriter(256)
  writeHeader(out, header)
  const head = out.take()
  const entry = allocate === undefined ? new Uint8Array(head.length + body.length) : allocate(head.length + body.length)
  entry.set(head, 0)
  entry.set(body, head.length)
  return entry
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

/** The header of an encoded entry and where its columns start, whether or not the columns can be read. */
const readHeader = (entry: Uint8Array): Result.Result<{ readonly header: BatchHeader; readonly end: number }, string> => {
  if (!isEncodedBatch(entry)) return Result.fail("not an encoded batch")
  if (entry.length < 8) return Result.fail("truncated header")
  const length = readInt32(entry, 4)
  if (length < 0 || 8 + length > entry.length) return Result.fail("truncated header")
  let header: unknown
  try {
    header = JSON.parse(Buffer.from(entry.buffer, entry.byteOffset + 8, length).toString("utf8"))
  } catch {
    return Result.fail("header is not JSON")
  }
  return isHeader(header) ? Result.succeed({ header, end: 8 + length }) : Result.fail("header lacks processCode, company, batchNo or products")
}

/** Whose batch an encoded entry is, even when its columns cannot be read: the load a refused entry's products failed on. */
export const readEncodedHeader = (entry: Uint8Array): Result.Result<BatchHeader, string> => Result.map(readHeader(entry), ({ header }) => header)

/**
 * The header and column views of an encoded entry, its framing checked: every length within the
 * entry, each column a one-dimensional array (or an empty one) of the type its place expects.
 * The elements are left to PostgreSQL, which checks them as it reads them.
 */
export const decodeEncodedBatch = (entry: Uint8Array): Result.Result<DecodedBatch, string> => {
  const read = readHeader(entry)
  if (Result.isFailure(read)) return Result.fail(read.failure)
  const { header } = read.success
  let at = read.success.end
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

const ARRAY_OIDS: Readonly<Record<number, number>> = {
  [PgTypes.OID.text]: PgTypes.OID.textArray,
  [PgTypes.OID.int4]: PgTypes.OID.int4Array,
  [PgTypes.OID.float8]: PgTypes.OID.float8Array
}

/** Every column's elements as PostgreSQL reads them (what a batch holds, whatever its bytes' has-null flags): for checks and diagnostics. */
export const columnValues = (batch: DecodedBatch): Result.Result<ReadonlyArray<unknown>, string> => {
  const values: Array<unknown> = []
  for (let c = 0; c < batch.columns.length; c++) {
    const decoded = PgTypes.decode(batch.columns[c]!, ARRAY_OIDS[COLUMN_TYPES[c]!]!, 1)
    if (Result.isFailure(decoded)) return Result.fail(`column ${c}: ${String(decoded.failure)}`)
    values.push(decoded.success)
  }
  return Result.succeed(values)
}
