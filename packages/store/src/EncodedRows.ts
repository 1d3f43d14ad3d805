import type { Product } from "@retail/domain"
import { BinaryArrayWriter } from "./BinaryArrayWriter.ts"
import { ENCODED_COLUMNS, writeElements } from "./EncodedColumns.ts"

/**
 * Products encoded one by one as the elements of an encoded batch's columns (EncodedColumns.ts),
 * where they are validated (a validation thread), so that a batch of them is laid out later by
 * copying byte runs (`layoutRows`), with no product object at hand.
 *
 * `bytes` holds column after column (ENCODED_COLUMNS' order), each the products' elements in
 * product order. With `n` products, for column `c` and product `p`, at `c * (n + 1) + p`:
 * `starts` where the product's elements start in `bytes` (at `p = n`: where the column ends) and
 * `elements` how many elements the products before it have in that column. `nulls[c]` is 1 when
 * some element of the column is NULL. Plain typed arrays: they cross threads by transfer.
 */
export interface EncodedRows {
  readonly count: number
  readonly bytes: Uint8Array
  readonly starts: Uint32Array
  readonly elements: Uint32Array
  readonly nulls: Uint8Array
}

/** The buffers to move with `rows` from one thread to another. */
export const rowsTransfers = (rows: EncodedRows): Array<ArrayBuffer> =>
  [rows.bytes.buffer, rows.starts.buffer, rows.elements.buffer, rows.nulls.buffer].filter((b): b is ArrayBuffer => b instanceof ArrayBuffer)

export const encodeRows = (products: ReadonlyArray<Product>, out: BinaryArrayWriter = new BinaryArrayWriter()): EncodedRows => {
  const count = products.length
  const stride = count + 1
  const starts = new Uint32Array(ENCODED_COLUMNS.length * stride)
  const elements = new Uint32Array(ENCODED_COLUMNS.length * stride)
  const nulls = new Uint8Array(ENCODED_COLUMNS.length)
  ENCODED_COLUMNS.forEach((column, c) => {
    let before = 0
    let hasNull = false
    for (let p = 0; p < count; p++) {
      const product = products[p]!
      starts[c * stride + p] = out.offset
      elements[c * stride + p] = before
      before += column.rows(product)
      hasNull = writeElements(out, column, product) || hasNull
    }
    starts[c * stride + count] = out.offset
    elements[c * stride + count] = before
    nulls[c] = hasNull ? 1 : 0
  })
  return { count, bytes: out.take(), starts, elements, nulls }
}

/** Products `from` to `to` (excluded) of `rows`, copied at once. */
export interface RowRun {
  readonly rows: EncodedRows
  readonly from: number
  readonly to: number
}

/**
 * The body of an encoded batch (EncodedBatch.ts: the column count, then each column as an int32
 * length and a binary array) of the products of `runs`, in their order: per column, one copy of
 * bytes per run, in `allocate`d memory. The has-null flag of a column is set when a run's column
 * has a NULL anywhere in its `rows` (array_recv reads the flag only as 0 or 1 and finds the NULLs itself).
 */
export const layoutRows = (runs: ReadonlyArray<RowRun>, allocate: (length: number) => Uint8Array = (length) => new Uint8Array(length)): Uint8Array => {
  const columns = ENCODED_COLUMNS.length
  let length = 4
  const counts = new Float64Array(columns)
  const hasNull = new Uint8Array(columns)
  for (let c = 0; c < columns; c++) {
    let bytes = 0
    let count = 0
    let nulls = 0
    for (const { rows, from, to } of runs) {
      const at = c * (rows.count + 1)
      bytes += rows.starts[at + to]! - rows.starts[at + from]!
      count += rows.elements[at + to]! - rows.elements[at + from]!
      nulls |= rows.nulls[c]!
    }
    counts[c] = count
    hasNull[c] = nulls
    length += 4 + (count === 0 ? 12 : 20) + bytes
  }
  const body = allocate(length)
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength)
  view.setInt32(0, columns)
  let at = 4
  for (let c = 0; c < columns; c++) {
    const lengthAt = at
    const count = counts[c]!
    view.setInt32(at + 4, count === 0 ? 0 : 1)
    view.setInt32(at + 8, count === 0 ? 0 : hasNull[c]!)
    view.setInt32(at + 12, ENCODED_COLUMNS[c]!.oid)
    at += 16
    if (count > 0) {
      view.setInt32(at, count)
      view.setInt32(at + 4, 1)
      at += 8
      for (const { rows, from, to } of runs) {
        const base = c * (rows.count + 1)
        const start = rows.starts[base + from]!
        const end = rows.starts[base + to]!
        body.set(rows.bytes.subarray(start, end), at)
        at += end - start
      }
    }
    view.setInt32(lengthAt, at - lengthAt - 4)
  }
  return body
}

/** The productCode of a row: its element of the first column (product_code, never NULL). */
export const rowCode = (rows: EncodedRows, row: number): string => {
  const at = rows.starts[row]!
  const b = rows.bytes
  const length = ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!)
  return Buffer.from(b.buffer, b.byteOffset + at + 4, length).toString("utf8")
}
