import { makeLoadValidator, type Product } from "@retail/domain"
import { type CsvDelimiter, type CsvFileHeaders, type CsvFileName, CsvHeader, CsvLayouts, CsvProductJson, joinPartitionEncoding, ProductJsonBytes } from "@retail/ingest"
import type { ErrorEntry } from "@retail/store"
import { BinaryArrayWriter, type EncodedRows, encodeRows } from "@retail/store/rows"
import { closeSync, fstatSync, openSync, readSync } from "node:fs"

/** What joining one partition needs, as plain data a worker thread can receive. */
export interface CsvJoinTask {
  /** The partition file; a missing file is an empty partition. */
  readonly path: string
  readonly company: string
  /** Each file's header row as read and its delimiter. */
  readonly headers: Readonly<Record<CsvFileName, { readonly fields: ReadonlyArray<string>; readonly delimiter: CsvDelimiter }>>
  /**
   * Where to write the accepted products' JSON, reused from partition to partition by the requester;
   * a partition that needs more goes on in a buffer of its own (`products` then is not a view of this).
   */
  readonly output?: SharedArrayBuffer
  /** BATCH_ENTRY_FORMAT=columns: the accepted products are also encoded as rows (EncodedRows), in the same order. */
  readonly encodeRows?: boolean
}

/**
 * One partition joined, validated and encoded, in the order of its items: `accepted[i]` is 1 when
 * item i is a valid product (its JSON is the next slice of `products`, ending at the next value of
 * `ends`) and 0 when it failed (its entry is the next of `errors`).
 */
export interface CsvJoinResult {
  readonly accepted: Uint8Array
  readonly products: Uint8Array
  readonly ends: Uint32Array
  readonly errors: ReadonlyArray<ErrorEntry>
  /** With `encodeRows`: the accepted products' column elements, one row each, in order. */
  readonly rows?: EncodedRows | undefined
}

/** Thrown when the header rows given to a worker no longer resolve: a bug, not bad input (the request checked them). */
export class CsvJoinTaskError extends Error {}

const CSV_FILES: ReadonlyArray<CsvFileName> = ["productsCsv", "hierarchiesCsv", "barcodesCsv", "attributesCsv"]

const resolveHeaders = (task: CsvJoinTask): CsvFileHeaders => {
  const resolved: Partial<Record<CsvFileName, CsvFileHeaders[CsvFileName]>> = {}
  for (const file of CSV_FILES) {
    const { delimiter, fields } = task.headers[file]
    const header = CsvHeader.resolve(CsvLayouts[file], fields)
    if (!(header instanceof CsvHeader)) throw new CsvJoinTaskError(`the ${file} header given to the join no longer resolves: ${header.message}`)
    resolved[file] = { header, delimiter, fields }
  }
  return resolved as CsvFileHeaders
}

/**
 * Read buffers of this thread, reused from task to task: a fresh Buffer per partition (2 MiB) is memory
 * outside the heap that V8 counts towards its next full collection.
 */
const spareBuffers: Array<Buffer> = []
/** A buffer grown past this for an unusually large partition is let go rather than held while the thread lives. */
const KEPT_BUFFER_BYTES = 8 * 1024 * 1024

const isMissing = (cause: unknown): boolean => typeof cause === "object" && cause !== null && "code" in cause && cause.code === "ENOENT"

/**
 * The partition file's bytes, read into `buffer` or, when it is too small, a larger one (the one to keep).
 * Read synchronously: a join thread has nothing else to do meanwhile.
 */
const readPartition = (path: string, buffer: Buffer): { readonly bytes: Uint8Array; readonly buffer: Buffer } => {
  let fd: number
  try {
    fd = openSync(path, "r")
  } catch (cause) {
    if (isMissing(cause)) return { bytes: buffer.subarray(0, 0), buffer }
    throw cause
  }
  try {
    const size = fstatSync(fd).size
    const into = buffer.length >= size ? buffer : Buffer.allocUnsafeSlow(Math.max(size, 2 * buffer.length))
    let read = 0
    while (read < size) {
      const n = readSync(fd, into, read, size - read, read)
      if (n === 0) break
      read += n
    }
    return { bytes: into.subarray(0, read), buffer: into }
  } finally {
    closeSync(fd)
  }
}

/**
 * Joins one partition (`joinPartitionEncoding`): a product `CsvProductJson` is sure of is written
 * straight from its cells; any other is validated as `spoolItems` does and, when accepted, encoded with
 * `JSON.stringify`. Each call has its own validator: a productCode is always in one partition, and the
 * join already fails a repeated productCode, so a validator per partition decides as one per load would
 * (and its duplicate rule never fails a product here, written from its cells or validated).
 */
export const runCsvJoinTask = async (task: CsvJoinTask): Promise<CsvJoinResult> => {
  const headers = resolveHeaders(task)
  const { buffer, bytes } = readPartition(task.path, spareBuffers.pop() ?? Buffer.allocUnsafeSlow(2 * 1024 * 1024))
  try {
    return joinBytes(task, headers, bytes)
  } finally {
    if (buffer.length <= KEPT_BUFFER_BYTES) spareBuffers.push(buffer)
  }
}

// One per thread: it grows to the largest partition's rows and is reused.
const rowsWriter = new BinaryArrayWriter(512 * 1024)

/**
 * A product this thread wrote as JSON from cells it checked (CsvProductJson), read back to be encoded
 * as columns: its JSON is that of a validated Product. Writing the columns from the cells directly
 * would spare this parse (a next step, docs/performance.md).
 */
const ownProduct = (products: ProductJsonBytes): Product => {
  const ends = products.ends
  const start = ends.length < 2 ? 0 : ends[ends.length - 2]!
  const written = products.written
  return JSON.parse(Buffer.from(written.buffer, written.byteOffset + start, ends[ends.length - 1]! - start).toString("utf8")) as Product
}

const joinBytes = (task: CsvJoinTask, headers: CsvFileHeaders, bytes: Uint8Array): CsvJoinResult => {
  const validator = makeLoadValidator(task.company)
  const accepted: Array<number> = []
  const products = new ProductJsonBytes(task.output)
  const errors: Array<ErrorEntry> = []
  const toEncode: Array<Product> | undefined = task.encodeRows === true ? [] : undefined
  for (const item of joinPartitionEncoding(bytes, headers, new CsvProductJson(headers, task.company, products))) {
    if (item._tag === "Encoded") {
      accepted.push(1)
      products.end()
      toEncode?.push(ownProduct(products))
      continue
    }
    if (item._tag === "Failed") {
      accepted.push(0)
      errors.push({ sku: item.sku, error: item.error })
      continue
    }
    const result = validator.validate(item.value, item.index)
    if (result._tag === "Success") {
      accepted.push(1)
      products.append(JSON.stringify(result.success))
      toEncode?.push(result.success)
    } else {
      accepted.push(0)
      const failure = result.failure
      errors.push(item.locate === undefined ? failure : { sku: failure.sku, error: item.locate(failure.error) })
    }
  }
  const rows = toEncode === undefined ? undefined : encodeRows(toEncode, rowsWriter)
  return { accepted: Uint8Array.from(accepted), products: products.written, ends: Uint32Array.from(products.ends), errors, rows }
}
