import type { Product } from "@retail/domain"
import { type EncodedRows, encodeRows, layoutRows, type RowRun } from "@retail/store"
import { BufferPool } from "../publish/BufferPool.ts"

/** An accepted product as a row a validation thread encoded. */
export interface AcceptedRow {
  readonly rows: EncodedRows
  readonly row: number
  readonly productCode: string
}

/** Bodies kept for reuse: one being written while the next is filled. */
const SPARE_BODIES = 2

/**
 * One batch of a file load as columns (BATCH_ENTRY_FORMAT=columns): its products are rows encoded
 * by the validation threads (EncodedRows), referred to until the batch is cut, or products validated
 * on this thread, encoded when it is cut. `take` lays the batch out sorted by productCode (so that
 * concurrent batches lock rows in the same order) as the body of an encoded batch, copying runs
 * of rows that follow one another in a block at once: a file sorted by code is a few copies a
 * column, one per block the batch spans. A load holds each code once (the duplicate rule), so
 * nothing is de-duplicated here.
 */
export class ColumnsBatch {
  /** Per product: the rows it is in (undefined: in `objects`, at `rowOf`), its row, its code. */
  private rowsOf: Array<EncodedRows | undefined> = []
  private rowOf: Array<number> = []
  private codes: Array<string> = []
  private objects: Array<Product> = []
  private readonly bodies = new BufferPool(SPARE_BODIES)

  get count(): number {
    return this.codes.length
  }

  appendRow(rows: EncodedRows, row: number, productCode: string): void {
    this.rowsOf.push(rows)
    this.rowOf.push(row)
    this.codes.push(productCode)
  }

  appendProduct(product: Product): void {
    this.rowsOf.push(undefined)
    this.rowOf.push(this.objects.length)
    this.objects.push(product)
    this.codes.push(product.productCode)
  }

  /** The batch's body (a pooled buffer: `recycle` it once written); the next batch starts empty. */
  take(): Uint8Array {
    const encoded = this.objects.length === 0 ? undefined : encodeRows(this.objects)
    const order = this.byCode()
    const runs: Array<RowRun> = []
    let run: { rows: EncodedRows; from: number; to: number } | undefined
    for (const i of order) {
      const rows = this.rowsOf[i] ?? encoded!
      const row = this.rowOf[i]!
      if (run !== undefined && run.rows === rows && run.to === row) run.to++
      else {
        if (run !== undefined) runs.push(run)
        run = { rows, from: row, to: row + 1 }
      }
    }
    if (run !== undefined) runs.push(run)
    this.rowsOf = []
    this.rowOf = []
    this.codes = []
    this.objects = []
    return layoutRows(runs, this.bodies.take)
  }

  recycle(body: Uint8Array): void {
    this.bodies.give(body)
  }

  /** The products' indices sorted by code: as they are when they came sorted (a check, not a sort). */
  private byCode(): ReadonlyArray<number> {
    const { codes } = this
    const order = Array.from({ length: codes.length }, (_, i) => i)
    for (let i = 1; i < codes.length; i++) {
      if (codes[i - 1]! > codes[i]!) return order.sort((a, b) => (codes[a]! < codes[b]! ? -1 : codes[a]! > codes[b]! ? 1 : 0))
    }
    return order
  }
}
