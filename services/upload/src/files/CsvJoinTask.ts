import { makeLoadValidator } from "@retail/domain"
import { type CsvDelimiter, type CsvFileName, CsvHeader, CsvLayouts } from "@retail/ingest"
import type { ErrorEntry } from "@retail/store"
import { readFile } from "node:fs/promises"
import { type CsvFileHeaders, joinPartition } from "./CsvJoin.ts"

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

const readPartition = (path: string): Promise<string> =>
  readFile(path, "utf8").catch((cause: unknown) =>
    typeof cause === "object" && cause !== null && "code" in cause && cause.code === "ENOENT" ? "" : Promise.reject(cause)
  )

/** Grows as products are appended; the bytes live outside the JavaScript heap and are handed over whole. */
class ProductBytes {
  private bytes: Buffer
  private length = 0
  readonly ends: Array<number> = []

  constructor(output: SharedArrayBuffer | undefined) {
    this.bytes = output === undefined ? Buffer.allocUnsafeSlow(256 * 1024) : Buffer.from(output)
  }

  append(json: string): void {
    // At most 3 bytes per UTF-16 unit.
    const need = this.length + 3 * json.length
    if (need > this.bytes.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(need, 2 * this.bytes.length))
      this.bytes.copy(grown, 0, 0, this.length)
      this.bytes = grown
    }
    this.length += this.bytes.write(json, this.length, "utf8")
    this.ends.push(this.length)
  }

  get written(): Uint8Array {
    return this.bytes.subarray(0, this.length)
  }
}

/**
 * Joins one partition (`joinPartition`), validates each product as `spoolItems` does and encodes the
 * accepted ones. Each call has its own validator: a productCode is always in one partition, and the
 * join already fails a repeated productCode, so a validator per partition decides as one per load would.
 */
export const runCsvJoinTask = async (task: CsvJoinTask): Promise<CsvJoinResult> => {
  const headers = resolveHeaders(task)
  const text = await readPartition(task.path)
  const validator = makeLoadValidator(task.company)
  const accepted: Array<number> = []
  const products = new ProductBytes(task.output)
  const errors: Array<ErrorEntry> = []
  for (const item of joinPartition(text, headers)) {
    if (item._tag === "Failed") {
      accepted.push(0)
      errors.push({ sku: item.sku, error: item.error })
      continue
    }
    const result = validator.validate(item.value, item.index)
    if (result._tag === "Right") {
      accepted.push(1)
      products.append(JSON.stringify(result.right))
    } else {
      accepted.push(0)
      const failure = result.left
      errors.push(item.locate === undefined ? failure : { sku: failure.sku, error: item.locate(failure.error) })
    }
  }
  return { accepted: Uint8Array.from(accepted), products: products.written, ends: Uint32Array.from(products.ends), errors }
}
