/**
 * The bytes of ProductBatch entries (ProductBatch's JSON, its products given already encoded):
 * `{"processCode":..,"company":..,"batchNo":N,"products":[...]}`, built once in memory the caller
 * allocates (a pool's, to be reused once the queue has the entry).
 */

export interface LoadRef {
  readonly processCode: string
  readonly company: string
}

/** One batch whose products are already the bytes of a JSON array (from a file load's spool). */
export interface EncodedBatch {
  readonly batchNo: number
  readonly productsJson: Uint8Array
}

/** One batch of `count` products already laid out as columns (the body of an encoded batch, from a file load's spool). */
export interface ColumnsBatch {
  readonly batchNo: number
  readonly count: number
  readonly body: Uint8Array
}

/** A spooled batch, in either format. */
export type SpooledBatch = EncodedBatch | ColumnsBatch

export const isColumnsBatch = (batch: SpooledBatch): batch is ColumnsBatch => "body" in batch

/** The bytes a spooled batch holds (its memory, given back once published). */
export const spooledBytes = (batch: SpooledBatch): Uint8Array => (isColumnsBatch(batch) ? batch.body : batch.productsJson)

const entryHead = (load: LoadRef, batchNo: number): Buffer =>
  Buffer.from(
    `{"processCode":${JSON.stringify(load.processCode)},"company":${JSON.stringify(load.company)},"batchNo":${batchNo},"products":`,
    "utf8"
  )

/** A ProductBatch entry around products already encoded, built as bytes in `allocate`d memory: `{"processCode":..,"batchNo":N,"products":` + products + `}`. */
export const encodedEntry = (load: LoadRef, batch: EncodedBatch, allocate: (length: number) => Uint8Array): Uint8Array => {
  const head = entryHead(load, batch.batchNo)
  const entry = allocate(head.length + batch.productsJson.length + 1)
  entry.set(head, 0)
  entry.set(batch.productsJson, head.length)
  entry[entry.length - 1] = 0x7d
  return entry
}

const COMMA = 0x2c

const isJsonSpace = (b: number): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09
/** Longest gap between two products read as a separator; a longer one is copied as two runs. */
const MAX_SEPARATOR = 64

/** Are the bytes of `whole` in [from, to) an array separator: one comma, whitespace around it? */
const isSeparator = (whole: Uint8Array, from: number, to: number): boolean => {
  if (to - from > MAX_SEPARATOR) return false
  let commas = 0
  for (let i = from; i < to; i++) {
    const b = whole[i]!
    if (b === COMMA) commas++
    else if (!isJsonSpace(b)) return false
  }
  return commas === 1
}

/**
 * The products as runs to copy: products that follow one another in the same buffer with only a
 * separator between them (a body's products, as the client sent them) are one run, copied at once
 * with the separators they came with, instead of product by product.
 */
const runsOf = (products: ReadonlyArray<Uint8Array>): Array<Uint8Array> => {
  const runs: Array<Uint8Array> = []
  let whole: Uint8Array | undefined
  let start = 0
  let end = 0
  for (const product of products) {
    const from = product.byteOffset
    if (whole !== undefined && product.buffer === whole.buffer && from >= end && isSeparator(whole, end, from)) {
      end = from + product.length
      continue
    }
    if (whole !== undefined) runs.push(whole.subarray(start, end))
    if (whole?.buffer !== product.buffer) whole = new Uint8Array(product.buffer)
    start = from
    end = from + product.length
  }
  if (whole !== undefined) runs.push(whole.subarray(start, end))
  return runs
}

/** A ProductBatch entry of products given as their JSON bytes, copied once (a run at a time) into `allocate`d memory. */
export const entryOfProducts = (load: LoadRef, batchNo: number, products: ReadonlyArray<Uint8Array>, allocate: (length: number) => Uint8Array): Uint8Array => {
  const head = entryHead(load, batchNo)
  const runs = runsOf(products)
  let length = head.length + 2 + Math.max(runs.length - 1, 0) + 1
  for (const run of runs) length += run.length
  const entry = allocate(length)
  entry.set(head, 0)
  let at = head.length
  entry[at++] = 0x5b
  runs.forEach((run, i) => {
    if (i > 0) entry[at++] = COMMA
    entry.set(run, at)
    at += run.length
  })
  entry[at++] = 0x5d
  entry[at] = 0x7d
  return entry
}

