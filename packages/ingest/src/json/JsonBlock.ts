import type { ProductFailure } from "@retail/domain"
import type { JsonSyntaxError } from "./JsonSyntaxError.ts"

/**
 * A block of products of a JSON file or body, sent to a validation thread: the products' bytes in
 * `bytes`, and per product LAYOUT_FIELDS numbers in `layout` (where its bytes start and end in the
 * block, and where it starts in the file, to report a syntax fault). A file's blocks hold their
 * products back to back, and both buffers are transferred to the thread and back, then reused for a
 * later block; a /load-products body's blocks are regions of the body itself, in a SharedArrayBuffer.
 */
export interface JsonBlock {
  readonly company: string
  /** Index in the products array of the block's first product. */
  readonly firstIndex: number
  readonly count: number
  /**
   * The products' bytes, from `bytesOffset` (0 when absent): a buffer of the block's own, transferred
   * to the thread and back, or a region of a SharedArrayBuffer, which the thread reads in place (a
   * large buffer transferred into a heap brings its next full garbage collection closer).
   */
  readonly bytes: ArrayBuffer | SharedArrayBuffer
  readonly bytesOffset?: number
  /** A Float64Array's buffer (file offsets can pass 2^32). */
  readonly layout: ArrayBuffer
}

/** The buffers that move with a block to its thread and back: a SharedArrayBuffer is shared, not moved. */
export const blockTransfers = (block: JsonBlock): Array<ArrayBuffer> =>
  block.bytes instanceof ArrayBuffer ? [block.bytes, block.layout] : [block.layout]

export const LAYOUT_FIELDS = 5
/** Where the product's bytes start, from `bytesOffset`. */
export const LAYOUT_START = 4
/** Where they end, from `bytesOffset`. */
export const LAYOUT_END = 0
export const LAYOUT_OFFSET = 1
export const LAYOUT_LINE = 2
export const LAYOUT_LINE_START = 3

/** Accepted, and its bytes in the block are what the queue gets (validation kept all of it). */
export const SAME_BYTES = 0
/** Accepted, re-encoded from its decoded value (it held keys the Product schema does not declare). */
export const RE_ENCODED = 1
export const FAILED = 2

/** A JsonSyntaxError as plain fields: what crosses the thread boundary (a class instance would lose its prototype). */
export type JsonFault = Pick<JsonSyntaxError, "kind" | "reason" | "offset" | "line" | "column">

/**
 * What a validation thread found in a block, product by product in block order: `outcomes` says
 * which; accepted products' productCode and skuCode (for the duplicate rule, judged afterwards in
 * file order) are back to back in `codes` with their lengths in `codeLengths`; `reEncoded` and
 * `failures` are in the order of their products. `fault`: a product is not well-formed JSON (the
 * whole file is rejected; the other fields are then empty).
 */
export interface JsonBlockResult {
  readonly block: JsonBlock
  readonly outcomes: Uint8Array
  readonly codes: string
  readonly codeLengths: Uint32Array
  readonly reEncoded: ReadonlyArray<string>
  readonly failures: ReadonlyArray<ProductFailure>
  readonly fault: JsonFault | undefined
}
