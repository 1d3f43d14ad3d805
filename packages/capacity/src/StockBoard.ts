import type { StockEntry } from "./Network.ts"

/** Units of a SKU at a node, as evaluation and origin search read them. */
export interface StockView {
  /** Units of `sku` at `node`; undefined when the node holds no row for the SKU (0 is a row: it carries the SKU, none left). */
  readonly unitsOf: (node: string, sku: string) => number | undefined
  /** The nodes holding a row for `sku` (units 0 included), in the order their codes were first seen; [] when none. */
  readonly holders: (sku: string) => ReadonlyArray<string>
}

/**
 * Stock rows as columns, row i being (nodes[i], skus[i], units[i], revisions[i]): a batch of
 * changes is handed over without an object per row. `revision` orders the changes of one row
 * (PostgreSQL raises it by one with every change of the row, under its row lock).
 */
export interface StockColumns {
  readonly nodes: ReadonlyArray<string>
  readonly skus: ReadonlyArray<string>
  readonly units: ArrayLike<number>
  readonly revisions: ArrayLike<number>
}

export interface StockHolding {
  readonly node: string
  readonly units: number
  readonly revision: number
}

/** The largest units a row can hold: PostgreSQL's integer, which a Uint32Array holds too. */
export const MAX_STOCK_UNITS = 2_147_483_647

const NO_HOLDERS: ReadonlyArray<string> = []

/**
 * Every stock row of a replica, compactly: node codes interned to ids, and per SKU one Uint32Array
 * `[node ids ascending (n) | units (n) | revisions (n)]`, 12 bytes a row plus one array per SKU.
 * A SKU's array is never edited: a change builds the SKU's next array and puts it in place of the
 * last (as an actor replaces a usage cell), so a reader that took one never sees it change, and a
 * change rebuilds only the SKUs it touches. Evaluation is synchronous: one request sees one state.
 */
export class StockBoard implements StockView {
  private readonly nodeIds = new Map<string, number>()
  private readonly nodeCodes: Array<string> = []
  private readonly bySku = new Map<string, Uint32Array>()
  private readonly holderLists = new WeakMap<Uint32Array, ReadonlyArray<string>>()
  private rowCount = 0

  /** Rows held (a row per node and SKU). */
  get rows(): number {
    return this.rowCount
  }

  /** SKUs with at least one row. */
  get skus(): number {
    return this.bySku.size
  }

  readonly unitsOf = (node: string, sku: string): number | undefined => {
    const cell = this.bySku.get(sku)
    if (cell === undefined) return undefined
    const id = this.nodeIds.get(node)
    if (id === undefined) return undefined
    const count = cell.length / 3
    const at = indexOfNode(cell, count, id)
    return at < 0 ? undefined : cell[count + at]
  }

  readonly holders = (sku: string): ReadonlyArray<string> => {
    const cell = this.bySku.get(sku)
    if (cell === undefined) return NO_HOLDERS
    let list = this.holderLists.get(cell)
    if (list === undefined) {
      const count = cell.length / 3
      const codes: Array<string> = []
      for (let i = 0; i < count; i++) codes.push(this.nodeCodes[cell[i]!]!)
      list = codes
      this.holderLists.set(cell, list)
    }
    return list
  }

  /** The rows of a SKU with their revisions (for GET /v1/stock/{sku} and tests). */
  holdingsOf(sku: string): ReadonlyArray<StockHolding> {
    const cell = this.bySku.get(sku)
    if (cell === undefined) return []
    const count = cell.length / 3
    const rows: Array<StockHolding> = []
    for (let i = 0; i < count; i++) rows.push({ node: this.nodeCodes[cell[i]!]!, units: cell[count + i]!, revision: cell[2 * count + i]! })
    return rows
  }

  /** Every row, SKU by SKU (tests comparing a replica with the database). */
  *entries(): IterableIterator<{ readonly node: string; readonly sku: string; readonly units: number; readonly revision: number }> {
    for (const sku of this.bySku.keys()) for (const row of this.holdingsOf(sku)) yield { sku, ...row }
  }

  /**
   * Applies absolute values by revision: a row is taken when the board has none for its node and
   * SKU, or holds an older revision; the same change twice, or an older one after a newer, changes
   * nothing. Only the SKUs with a row taken get a new array. Answers how many rows were taken.
   */
  apply(columns: StockColumns): number {
    const rowsBySku = new Map<string, Array<number>>()
    for (let row = 0; row < columns.skus.length; row++) {
      const sku = columns.skus[row]!
      const rows = rowsBySku.get(sku)
      if (rows === undefined) rowsBySku.set(sku, [row])
      else rows.push(row)
    }
    let taken = 0
    for (const [sku, rows] of rowsBySku) taken += this.applySku(sku, rows, columns)
    return taken
  }

  private idOf(node: string): number {
    let id = this.nodeIds.get(node)
    if (id === undefined) {
      id = this.nodeCodes.length
      this.nodeCodes.push(node)
      this.nodeIds.set(node, id)
    }
    return id
  }

  private applySku(sku: string, rows: ReadonlyArray<number>, columns: StockColumns): number {
    // The changes of this SKU by node id, one per node (the highest revision; the later row on a tie).
    const changes: Array<{ id: number; units: number; revision: number }> = []
    for (const row of rows) changes.push({ id: this.idOf(columns.nodes[row]!), units: columns.units[row]!, revision: columns.revisions[row]! })
    changes.sort((a, b) => a.id - b.id)
    let distinct = 0
    for (const change of changes) {
      const last = distinct > 0 ? changes[distinct - 1]! : undefined
      if (last !== undefined && last.id === change.id) {
        if (change.revision >= last.revision) changes[distinct - 1] = change
      } else changes[distinct++] = change
    }
    changes.length = distinct

    const current = this.bySku.get(sku)
    const count = current === undefined ? 0 : current.length / 3
    let added = 0
    let taken = 0
    for (const change of changes) {
      const at = current === undefined ? -1 : indexOfNode(current, count, change.id)
      if (at < 0) {
        added++
        taken++
      } else if (change.revision > current![2 * count + at]!) taken++
    }
    if (taken === 0) return 0

    const size = count + added
    const next = new Uint32Array(3 * size)
    let i = 0
    let j = 0
    for (let out = 0; out < size; out++) {
      const change = changes[j]
      const currentId = i < count ? current![i]! : Number.MAX_SAFE_INTEGER
      if (change !== undefined && change.id <= currentId) {
        const newer = change.id < currentId || change.revision > current![2 * count + i]!
        next[out] = change.id
        next[size + out] = newer ? change.units : current![count + i]!
        next[2 * size + out] = newer ? change.revision : current![2 * count + i]!
        if (change.id === currentId) i++
        j++
      } else {
        next[out] = currentId
        next[size + out] = current![count + i]!
        next[2 * size + out] = current![2 * count + i]!
        i++
      }
    }
    this.bySku.set(sku, next)
    this.rowCount += added
    return taken
  }
}

/** Where node `id` is among the first `count` (ascending) ids of `cell`; -1 when absent. */
const indexOfNode = (cell: Uint32Array, count: number, id: number): number => {
  let low = 0
  let high = count - 1
  while (low <= high) {
    const middle = (low + high) >>> 1
    const value = cell[middle]!
    if (value === id) return middle
    if (value < id) low = middle + 1
    else high = middle - 1
  }
  return -1
}

/**
 * A board holding a document's stock once (tests, one-off evaluations, the benchmark's in-process
 * engine): entries of one node and SKU add up, as they always did in a network document.
 */
export const stockBoardOf = (entries: ReadonlyArray<StockEntry>): StockBoard => {
  const summed = new Map<string, { node: string; sku: string; units: number }>()
  for (const entry of entries) {
    const key = `${entry.node}\u0000${entry.sku}`
    const seen = summed.get(key)
    if (seen === undefined) summed.set(key, { node: entry.node, sku: entry.sku, units: entry.units })
    else seen.units += entry.units
  }
  const rows = [...summed.values()]
  const board = new StockBoard()
  board.apply({
    nodes: rows.map((row) => row.node),
    skus: rows.map((row) => row.sku),
    units: rows.map((row) => Math.min(row.units, MAX_STOCK_UNITS)),
    revisions: rows.map(() => 1)
  })
  return board
}
