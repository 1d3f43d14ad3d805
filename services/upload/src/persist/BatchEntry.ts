import { decodeProductBatch, type ProductBatch } from "@retail/domain"
import { type BatchHeader, type DecodedBatch, decodeEncodedBatch, isEncodedBatch, readEncodedHeader, UNREADABLE_SKU } from "@retail/store"
import { Option, Result } from "effect"
import { MAX_BATCH_PRODUCTS } from "../UploadConfig.ts"

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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const MAX_BATCH_NO = 2 ** 31 - 1

/**
 * Whether the entry names a load and batch the database can hold (a uuid, an integer): one that
 * does not could be neither persisted nor recorded dead, and would be delivered for ever.
 */
const attributable = (header: Pick<BatchHeader, "processCode" | "batchNo">): boolean =>
  UUID.test(header.processCode) && Number.isInteger(header.batchNo) && header.batchNo >= 0 && header.batchNo <= MAX_BATCH_NO

const columnsBytes = (payload: string): Buffer => Buffer.from(payload.substring(COLUMNS_PREFIX.length), "base64")

const decodeColumns = (bytes: Buffer): Result.Result<BatchEntry, string> =>
  isEncodedBatch(bytes)
    ? Result.map(decodeEncodedBatch(bytes), (batch): BatchEntry => ({ _tag: "Columns", batch }))
    : Result.fail("not base64 of an encoded batch")

export const decodeBatchEntry = (payload: string): Result.Result<BatchEntry, string> => {
  const decoded: Result.Result<BatchEntry, string> = payload.startsWith(COLUMNS_PREFIX)
    ? decodeColumns(columnsBytes(payload))
    : Result.match(decodeProductBatch(payload), {
      onFailure: (error) => Result.fail(error.message),
      onSuccess: (batch) => Result.succeed<BatchEntry>({ _tag: "Json", batch })
    })
  return Result.flatMap(decoded, (entry) =>
    attributable(headerOf(entry)) ? Result.succeed(entry) : Result.fail("its processCode is not a UUID or its batchNo not a batch number"))
}

/** A refused entry's load and batch, and one SKU per product it sent (UNREADABLE_SKU where none can be read). */
export interface RefusedBatch {
  readonly header: Pick<BatchHeader, "processCode" | "batchNo">
  readonly skus: ReadonlyArray<string>
}

const refusedJson = (payload: string): Option.Option<RefusedBatch> => {
  let value: unknown
  try {
    value = JSON.parse(payload)
  } catch {
    return Option.none()
  }
  if (typeof value !== "object" || value === null) return Option.none()
  const { processCode, batchNo, products } = value as Record<string, unknown>
  if (typeof processCode !== "string" || typeof batchNo !== "number" || !Array.isArray(products)) return Option.none()
  const skus = products.map((product: unknown) => {
    const sku = typeof product === "object" && product !== null ? (product as Record<string, unknown>)["skuCode"] : undefined
    return typeof sku === "string" ? sku : UNREADABLE_SKU
  })
  return Option.some({ header: { processCode, batchNo }, skus })
}

const refusedColumns = (payload: string): Option.Option<RefusedBatch> =>
  Result.getSuccess(readEncodedHeader(columnsBytes(payload))).pipe(
    Option.filter((header) => header.products >= 0 && header.products <= MAX_BATCH_PRODUCTS),
    Option.map((header) => ({ header, skus: Array.from({ length: header.products }, () => UNREADABLE_SKU) }))
  )

/**
 * Whose batch an entry that cannot be decoded was, when that much of it can be read: its products
 * are then failed on their load (a schema that changed between releases, a corrupt column), so
 * the load still ends. None for an entry that names no load the database could hold.
 */
export const refusedBatchOf = (payload: string): Option.Option<RefusedBatch> =>
  Option.filter(payload.startsWith(COLUMNS_PREFIX) ? refusedColumns(payload) : refusedJson(payload), (refused) => attributable(refused.header))
