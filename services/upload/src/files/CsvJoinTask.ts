import { makeFirstOccurrences, makeLoadValidator, makeProductCodeIndex } from "@retail/domain"
import { type CsvDelimiter, type CsvFileName, CsvHeader, CsvLayouts } from "@retail/ingest"
import type { ErrorEntry } from "@retail/store"
import { readFile } from "node:fs/promises"
import { type CsvFileHeaders, joinPartitionEncoding } from "./CsvJoin.ts"
import { makeCsvProductJson } from "./CsvProductJson.ts"
import { ProductJsonBytes } from "./ProductJsonBytes.ts"

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

/**
 * Joins one partition (`joinPartitionEncoding`): a product `CsvProductJson` is sure of is written
 * straight from its cells; any other is validated as `spoolItems` does and, when accepted, encoded with
 * `JSON.stringify`. Each call has its own validator: a productCode is always in one partition, and the
 * join already fails a repeated productCode, so a validator per partition decides as one per load would.
 */
export const runCsvJoinTask = async (task: CsvJoinTask): Promise<CsvJoinResult> => {
  const headers = resolveHeaders(task)
  const text = await readPartition(task.path)
  // Products encoded from their cells and those validated as values share one duplicate rule, as in one validator.
  const codes = makeProductCodeIndex()
  const validator = makeLoadValidator(task.company, codes)
  const firstOccurrence = makeFirstOccurrences(codes)
  const accepted: Array<number> = []
  const products = new ProductJsonBytes(task.output)
  const errors: Array<ErrorEntry> = []
  for (const item of joinPartitionEncoding(text, headers, makeCsvProductJson(headers, task.company, products))) {
    if (item._tag === "Encoded") {
      const duplicate = firstOccurrence(item.productCode, item.skuCode, item.index)
      if (duplicate === undefined) {
        accepted.push(1)
        products.end()
      } else {
        accepted.push(0)
        products.drop()
        errors.push({ sku: duplicate.sku, error: item.locate(duplicate.error) })
      }
      continue
    }
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
