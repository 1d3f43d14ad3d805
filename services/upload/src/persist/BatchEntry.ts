import { decodeProductBatch, type ProductBatch } from "@retail/domain"
import { type DecodedBatch, decodeEncodedBatch, isEncodedBatch, type BatchHeader } from "@retail/store"
import { Result } from "effect"

/**
 * The two formats of a product batches entry. `Json`: ProductBatch's JSON (`{"processCode":..`),
 * every release so far. `Columns`: the batch encoded at intake as the binary column arrays the
 * write statements bind (packages/store EncodedBatch.ts), carried as text: COLUMNS_PREFIX then its
 * base64, so every queue (Redis, PostgreSQL text, in-process) keeps it as it keeps JSON. Workers
 * read both, so that entries published by an older release are persisted during a rolling deploy.
 */
export const COLUMNS_PREFIX = "PC1:"

export type BatchEntry =
  | { readonly _tag: "Json"; readonly batch: ProductBatch }
  | { readonly _tag: "Columns"; readonly batch: DecodedBatch }

/** The entry's load and batch, whatever its format. */
export const headerOf = (entry: BatchEntry): BatchHeader =>
  entry._tag === "Columns"
    ? entry.batch.header
    : { processCode: entry.batch.processCode, company: entry.batch.company, batchNo: entry.batch.batchNo, products: entry.batch.products.length }

/** A batch encoded at intake, as the text of an entry. */
export const columnsEntry = (encoded: Uint8Array): string =>
  COLUMNS_PREFIX + Buffer.from(encoded.buffer, encoded.byteOffset, encoded.byteLength).toString("base64")

export const decodeBatchEntry = (payload: string): Result.Result<BatchEntry, string> => {
  if (payload.startsWith(COLUMNS_PREFIX)) {
    const bytes = Buffer.from(payload.substring(COLUMNS_PREFIX.length), "base64")
    if (!isEncodedBatch(bytes)) return Result.fail("not base64 of an encoded batch")
    return Result.map(decodeEncodedBatch(bytes), (batch) => ({ _tag: "Columns", batch }))
  }
  return Result.match(decodeProductBatch(payload), {
    onFailure: (error) => Result.fail(error.message),
    onSuccess: (batch) => Result.succeed({ _tag: "Json", batch })
  })
}
