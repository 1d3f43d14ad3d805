import { COLUMNS_PREFIX } from "@retail/service-upload"
import { decodeEncodedBatch } from "@retail/store"
import { Result } from "effect"

/** A product batches entry published as binary columns (BATCH_ENTRY_FORMAT=columns), not as ProductBatch's JSON. */
export const isColumnsEntry = (payload: string): boolean => payload.startsWith(COLUMNS_PREFIX)

/** `processCode/batchNo` of a product batches entry, whatever its format (`?` when it is neither). */
export const batchKeyOf = (payload: string): string => {
  if (isColumnsEntry(payload)) {
    const decoded = decodeEncodedBatch(Buffer.from(payload.substring(COLUMNS_PREFIX.length), "base64"))
    return Result.isSuccess(decoded) ? `${decoded.success.header.processCode}/${decoded.success.header.batchNo}` : "?"
  }
  try {
    const batch = JSON.parse(payload) as { processCode: string; batchNo: number }
    return `${batch.processCode}/${batch.batchNo}`
  } catch {
    return "?"
  }
}
