import { Schema } from "effect"
import { ProcessCode } from "./Load.ts"
import { Product } from "./Product.ts"

/** One queue entry: hundreds of validated products of one load, persisted together. */
export class ProductBatch extends Schema.Class<ProductBatch>("ProductBatch")({
  processCode: ProcessCode,
  company: Schema.String,
  batchNo: Schema.Int,
  products: Schema.Array(Product)
}) {}

export const ProductBatchJson = Schema.fromJsonString(ProductBatch)
export const encodeProductBatch = Schema.encodeSync(ProductBatchJson)
export const decodeProductBatch = Schema.decodeUnknownResult(ProductBatchJson)
