import type { Product } from "@retail/domain"
import { blockTransfers, type JsonBlock, type JsonBlockResult, validateJsonBlock } from "@retail/ingest"
import { BinaryArrayWriter, type EncodedRows, encodeRows, rowsTransfers } from "@retail/store/rows"

/** One block to validate; with `encodeRows`, its accepted products are also encoded as columns (BATCH_ENTRY_FORMAT=columns). */
export interface JsonValidationTask {
  readonly block: JsonBlock
  readonly encodeRows: boolean
}

/** A validated block, and with `encodeRows` its accepted products' column elements, in block order (duplicates included: the rule is judged after). */
export interface ValidatedBlock extends JsonBlockResult {
  readonly rows: EncodedRows | undefined
}

// One per thread: it grows to the largest block's rows and is reused.
const writer = new BinaryArrayWriter(512 * 1024)

/** Validates (and encodes) a block, on whichever thread runs it. */
export const runValidation = (task: JsonValidationTask): ValidatedBlock => {
  if (!task.encodeRows) return { ...validateJsonBlock(task.block), rows: undefined }
  const accepted: Array<Product> = []
  const result = validateJsonBlock(task.block, (product) => accepted.push(product))
  return { ...result, rows: result.fault === undefined ? encodeRows(accepted, writer) : undefined }
}

/** The buffers that move with a task's result: the block's, and the rows'. */
export const validatedTransfers = (result: ValidatedBlock): Array<ArrayBuffer> =>
  result.rows === undefined ? blockTransfers(result.block) : [...blockTransfers(result.block), ...rowsTransfers(result.rows)]
