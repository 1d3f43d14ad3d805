import { type Product, type ProductFailure, validateForCompany } from "@retail/domain"
import { elementFault } from "./JsonProductScanner.ts"
import { Result } from "effect"
import {
  FAILED,
  type JsonBlock,
  type JsonBlockResult,
  LAYOUT_END,
  LAYOUT_FIELDS,
  LAYOUT_LINE,
  LAYOUT_LINE_START,
  LAYOUT_OFFSET,
  LAYOUT_START,
  RE_ENCODED,
  SAME_BYTES
} from "./JsonBlock.ts"
import { validationKeptInput } from "./ValidationKeptInput.ts"

/**
 * Parses and validates the products of one block on their own (product rules and companyCode; the
 * duplicate rule needs the whole file in order and is the caller's). Runs in a validation thread.
 * `accepted` is given each accepted product, in block order (to encode it while it is at hand).
 */
export const validateJsonBlock = (block: JsonBlock, accepted?: (product: Product) => void): JsonBlockResult => {
  const bytes = Buffer.from(block.bytes, block.bytesOffset ?? 0)
  const layout = new Float64Array(block.layout)
  const outcomes = new Uint8Array(block.count)
  const codeLengths = new Uint32Array(block.count * 2)
  const codes: Array<string> = []
  const reEncoded: Array<string> = []
  const failures: Array<ProductFailure> = []
  let acceptedCount = 0
  for (let i = 0; i < block.count; i++) {
    const at = i * LAYOUT_FIELDS
    const start = layout[at + LAYOUT_START]!
    const end = layout[at + LAYOUT_END]!
    let value: unknown
    try {
      value = JSON.parse(bytes.toString("utf8", start, end))
    } catch {
      const where = { offset: layout[at + LAYOUT_OFFSET]!, line: layout[at + LAYOUT_LINE]!, lineStart: layout[at + LAYOUT_LINE_START]! }
      const { kind, reason, offset, line, column } = elementFault(bytes.subarray(start, end), where, block.firstIndex + i)
      return { block, outcomes: new Uint8Array(0), codes: "", codeLengths: new Uint32Array(0), reEncoded: [], failures: [], fault: { kind, reason, offset, line, column } }
    }
    const checked = validateForCompany(value, block.company)
    if (Result.isFailure(checked)) {
      outcomes[i] = FAILED
      failures.push(checked.failure)
    } else {
      const product = checked.success
      codes.push(product.productCode, product.skuCode)
      codeLengths[acceptedCount * 2] = product.productCode.length
      codeLengths[acceptedCount * 2 + 1] = product.skuCode.length
      acceptedCount++
      accepted?.(product)
      if (validationKeptInput(value, product)) outcomes[i] = SAME_BYTES
      else {
        outcomes[i] = RE_ENCODED
        reEncoded.push(JSON.stringify(product))
      }
    }
  }
  return { block, outcomes, codes: codes.join(""), codeLengths: codeLengths.subarray(0, acceptedCount * 2), reEncoded, failures, fault: undefined }
}
