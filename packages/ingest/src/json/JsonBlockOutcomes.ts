import type { makeFirstOccurrences, ProductFailure } from "@retail/domain"
import { FAILED, type JsonBlockResult, LAYOUT_END, LAYOUT_FIELDS, LAYOUT_START, SAME_BYTES } from "./JsonBlock.ts"

/**
 * Where the products of a validated block go, in order. An accepted product comes with its place
 * among the block's accepted products (`row`: the thread's count, duplicates included) and its
 * productCode, for what the thread gave per accepted product beside the JSON.
 */
export interface BlockOutcomeSink {
  readonly fail: (failure: ProductFailure) => void
  /** An accepted product as the bytes it came as (a view of the block's buffer). */
  readonly acceptBytes: (json: Uint8Array, row: number, productCode: string) => void
  /** An accepted product, re-encoded (validation dropped keys of it). */
  readonly acceptText: (json: string, row: number, productCode: string) => void
}

/**
 * A validated block's products, in order, into `sink`, with the duplicate rule applied (the
 * thread judged each product alone; the rule needs every earlier product of the load).
 */
export const readBlockOutcomes = (
  result: JsonBlockResult,
  firstOccurrence: ReturnType<typeof makeFirstOccurrences>,
  sink: BlockOutcomeSink
): void => {
  const { block, outcomes, codes, codeLengths } = result
  const bytes = new Uint8Array(block.bytes, block.bytesOffset ?? 0)
  const layout = new Float64Array(block.layout)
  let failure = 0
  let reEncoded = 0
  let accepted = 0
  let codeAt = 0
  for (let i = 0; i < block.count; i++) {
    const start = layout[i * LAYOUT_FIELDS + LAYOUT_START]!
    const end = layout[i * LAYOUT_FIELDS + LAYOUT_END]!
    const outcome = outcomes[i]
    if (outcome === FAILED) sink.fail(result.failures[failure++]!)
    else {
      const row = accepted++
      const codeEnd = codeAt + codeLengths[row * 2]!
      const skuEnd = codeEnd + codeLengths[row * 2 + 1]!
      const productCode = codes.slice(codeAt, codeEnd)
      const duplicate = firstOccurrence(productCode, codes.slice(codeEnd, skuEnd), block.firstIndex + i)
      codeAt = skuEnd
      const text = outcome === SAME_BYTES ? undefined : result.reEncoded[reEncoded++]!
      if (duplicate !== undefined) sink.fail(duplicate)
      else if (text === undefined) sink.acceptBytes(bytes.subarray(start, end), row, productCode)
      else sink.acceptText(text, row, productCode)
    }
  }
}
