import { Result, Schema } from "effect"
import { makeFastDecoder } from "./FastDecode.ts"
import { ProcessCode } from "./Load.ts"
import { Product } from "./Product.ts"

/** One queue entry: hundreds of validated products of one load, persisted together. */
export const ProductBatch = Schema.Struct({
  processCode: ProcessCode,
  company: Schema.String,
  batchNo: Schema.Int,
  products: Schema.Array(Product)
}).annotate({ identifier: "ProductBatch" })
export type ProductBatch = typeof ProductBatch.Type

export const ProductBatchJson = Schema.fromJsonString(ProductBatch)
export const encodeProductBatch = Schema.encodeSync(ProductBatchJson)

const decodeWithSchema = Schema.decodeUnknownResult(ProductBatchJson)
/** The same checks as Schema's, compiled (FastDecode.ts); `undefined` sends the entry to Schema for its message. */
const decodeValidBatch = makeFastDecoder(ProductBatch)

const parsedJson = (text: unknown): unknown => {
  if (typeof text !== "string") return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * A queue entry back into a batch. Workers decode every entry they persist (the queue is outside
 * the process, so an entry is checked again), and Schema's parser cost them three times JSON.parse:
 * a valid entry takes the compiled decoder, anything else Schema, for the same answer with its message.
 */
export const decodeProductBatch = (text: unknown): Result.Result<ProductBatch, Schema.SchemaError> => {
  const batch = decodeValidBatch(parsedJson(text))
  return batch === undefined ? decodeWithSchema(text) : Result.succeed(batch)
}
