import { type JsonBlock, LAYOUT_END, LAYOUT_FIELDS, LAYOUT_LINE, LAYOUT_LINE_START, LAYOUT_OFFSET, LAYOUT_START } from "./JsonBlock.ts"
import { MAX_JSON_DEPTH } from "./JsonDepth.ts"

/**
 * Where each element of a `{"products":[...]}` body lies: element `i` is `bytes[starts[i], ends[i])`.
 * `values` counts the body's JSON values as `measureJson` does (member names included).
 */
export interface ProductsBodyLayout {
  readonly count: number
  readonly starts: Uint32Array
  readonly ends: Uint32Array
  readonly values: number
}

export interface ProductsBodyLimits {
  /** Most JSON values in the whole body (LOAD_PRODUCTS_MAX_VALUES). */
  readonly maxValues: number
  /** Most elements in the products array. */
  readonly maxProducts: number
  /** Deepest nesting of the body, its object and the array included. */
  readonly maxDepth?: number
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const PRODUCTS_KEY = new TextEncoder().encode("\"products\"")

// What a byte is to the walk over an element: a byte of a number or literal, a separator, an opening or closing bracket, a quote.
const SCALAR = 0
const SEPARATOR = 1
const OPEN = 2
const CLOSE = 3
const STRING = 4
const CLASS = new Uint8Array(256).fill(SCALAR)
for (const b of [0x20, 0x09, 0x0a, 0x0d, 0x2c, 0x3a]) CLASS[b] = SEPARATOR
for (const b of [0x7b, 0x5b]) CLASS[b] = OPEN
for (const b of [0x7d, 0x5d]) CLASS[b] = CLOSE
CLASS[QUOTE] = STRING

/** Bytes that end a number or literal: whitespace, `,` `:` brackets and braces, a quote (as measureJson). */
const ENDS_SCALAR = new Uint8Array(256)
for (const b of [0x20, 0x09, 0x0a, 0x0d, 0x2c, 0x3a, 0x5b, 0x5d, 0x7b, 0x7d, QUOTE]) ENDS_SCALAR[b] = 1

const isWs = (b: number): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09

const skipWs = (bytes: Uint8Array, i: number): number => {
  const length = bytes.length
  while (i < length && isWs(bytes[i]!)) i++
  return i
}

/** The walk's state between elements: the values counted so far. */
interface Walk {
  values: number
}

/**
 * Index just past the element starting at `i` (a value, not checked), or -1 when the bytes end first or
 * it nests deeper than `maxDepth`; counts its values into `walk`. Byte loops with a class table: strings
 * in products are short, and this measured a third faster than `indexOf` per string or `measureJson`'s loop.
 */
const endOfElement = (bytes: Uint8Array, i: number, maxDepth: number, walk: Walk): number => {
  const length = bytes.length
  let depth = 0
  let values = 0
  while (i < length) {
    const c = CLASS[bytes[i]!]!
    if (c === SEPARATOR) {
      i++
      continue
    }
    if (c === CLOSE) {
      i++
      if (--depth <= 0) break
      continue
    }
    values++
    if (c === STRING) {
      i++
      for (;;) {
        if (i >= length) return -1
        const s = bytes[i]!
        if (s === QUOTE) break
        i += s === BACKSLASH ? 2 : 1
      }
      i++
      if (depth === 0) break
    } else if (c === OPEN) {
      if (++depth > maxDepth) return -1
      i++
    } else {
      i++
      while (i < length && ENDS_SCALAR[bytes[i]!] === 0) i++
      if (depth === 0) break
    }
  }
  walk.values += values
  return depth === 0 ? i : -1
}

/**
 * Delimits the products of a `/load-products` body in one pass over its bytes, without parsing them,
 * for bodies of the one shape clients send: `{"products":[...]}` with nothing else in the object
 * (whitespace aside). Each element is delimited by its brackets outside strings; it is not checked
 * here, so the caller must JSON.parse every element (a malformed one fails there) and check the
 * bytes are UTF-8. With that done, the body is valid JSON whose products are exactly the elements.
 *
 * `undefined` means "not that shape, or over a limit": another key, a byte order mark, anything after
 * the object, more values or products or nesting than `limits` allow. The caller then reads the body
 * the general way, which says what is wrong, or accepts it. Values and depth are counted as
 * `measureJson` counts them, so a body within its limits here is within them there.
 */
export const splitProductsBody = (bytes: Uint8Array, limits: ProductsBodyLimits): ProductsBodyLayout | undefined => {
  const maxDepth = limits.maxDepth ?? MAX_JSON_DEPTH
  const length = bytes.length
  let i = skipWs(bytes, 0)
  if (bytes[i] !== 0x7b) return undefined
  i = skipWs(bytes, i + 1)
  for (let k = 0; k < PRODUCTS_KEY.length; k++) if (bytes[i + k] !== PRODUCTS_KEY[k]) return undefined
  i = skipWs(bytes, i + PRODUCTS_KEY.length)
  if (bytes[i] !== 0x3a) return undefined
  i = skipWs(bytes, i + 1)
  if (bytes[i] !== 0x5b || maxDepth < 2) return undefined
  // The object, its key and the array.
  const walk: Walk = { values: 3 }
  const elementDepth = maxDepth - 2
  let starts = new Uint32Array(Math.min(limits.maxProducts, 4096))
  let ends = new Uint32Array(starts.length)
  let count = 0
  i = skipWs(bytes, i + 1)
  if (bytes[i] === 0x5d) i++
  else {
    for (;;) {
      if (count === limits.maxProducts) return undefined
      if (count === starts.length) {
        const grownStarts = new Uint32Array(Math.min(limits.maxProducts, starts.length * 2))
        const grownEnds = new Uint32Array(grownStarts.length)
        grownStarts.set(starts)
        grownEnds.set(ends)
        starts = grownStarts
        ends = grownEnds
      }
      const start = i
      const first = bytes[i]
      if (first === undefined || first === 0x2c || first === 0x3a || first === 0x5d || first === 0x7d) return undefined
      i = endOfElement(bytes, i, elementDepth, walk)
      if (i < 0) return undefined
      if (walk.values > limits.maxValues) return undefined
      starts[count] = start
      ends[count] = i
      count++
      i = skipWs(bytes, i)
      if (bytes[i] === 0x2c) i = skipWs(bytes, i + 1)
      else if (bytes[i] === 0x5d) {
        i++
        break
      } else return undefined
    }
  }
  i = skipWs(bytes, i)
  if (bytes[i] !== 0x7d) return undefined
  if (skipWs(bytes, i + 1) !== length) return undefined
  return { count, starts, ends, values: walk.values }
}

/**
 * The products of a split body as JsonBlocks of about `blockBytes` each (at least one product a block),
 * for `validateJsonBlock` on a validation thread or on this one. Each block is a region of the body
 * itself, which must be a view of a SharedArrayBuffer: the threads read the products where they are,
 * nothing is copied and nothing moves between heaps. A product's line is not tracked (faults are not
 * reported from here: a fault sends the body the general way).
 */
export const productsBodyBlocks = (
  body: Uint8Array,
  layout: ProductsBodyLayout,
  company: string,
  blockBytes: number
): ReadonlyArray<JsonBlock> => {
  const shared = body.buffer
  if (!(shared instanceof SharedArrayBuffer)) throw new TypeError("productsBodyBlocks: the body must be a view of a SharedArrayBuffer")
  const blocks: Array<JsonBlock> = []
  let first = 0
  while (first < layout.count) {
    let last = first + 1
    const from = layout.starts[first]!
    while (last < layout.count && layout.ends[last]! - from <= blockBytes) last++
    const count = last - first
    const places = new Float64Array(count * LAYOUT_FIELDS)
    for (let p = first; p < last; p++) {
      const at = (p - first) * LAYOUT_FIELDS
      places[at + LAYOUT_START] = layout.starts[p]! - from
      places[at + LAYOUT_END] = layout.ends[p]! - from
      places[at + LAYOUT_OFFSET] = layout.starts[p]!
      places[at + LAYOUT_LINE] = 1
      places[at + LAYOUT_LINE_START] = 0
    }
    blocks.push({ company, firstIndex: first, count, bytes: shared, bytesOffset: body.byteOffset + from, layout: places.buffer })
    first = last
  }
  return blocks
}
