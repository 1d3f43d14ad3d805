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

/** SKUs per chunk (by interned id): a change copies its chunk, about 16 x 12 bytes x rows per SKU. */
const SHIFT = 4
const PER_CHUNK = 1 << SHIFT
const SLOT = PER_CHUNK - 1
/** A chunk starts with PER_CHUNK + 1 offsets: slot s's rows are [chunk[s], chunk[s + 1]). */
const HEADER = PER_CHUNK + 1
const EMPTY_CHUNK: Uint32Array = new Uint32Array(HEADER).fill(HEADER)
/** Offsets a chunk can have (a Uint32Array's length): chunk index times this plus an offset names one place. */
const POSITIONS = 2 ** 32

/**
 * Every stock row of a replica, compactly: node codes and SKUs interned to ids, and the rows of 16
 * SKUs (by id) in one Uint32Array chunk, each SKU's rows as `[node ids ascending (n) | units (n) |
 * revisions (n)]`: 12 bytes a row, no object per row, one array per 16 SKUs. A change of a row
 * the board holds writes its units and revision in place; a row added rebuilds its chunk aside
 * and copies it back when the chunk has room (a chunk that grows gets an eighth more room), so a
 * feed of random rows allocates nothing for most of them (copying a chunk per row was most of a
 * replica's CPU, most of it GC). Holder lists are cached per chunk and slot, and dropped when
 * their SKU gains a node. Evaluation is synchronous and reads the board afresh each time: one
 * request sees one state.
 */
export class StockBoard implements StockView {
  private readonly nodeIds = new Map<string, number>()
  private readonly nodeCodes: Array<string> = []
  private readonly skuIds = new Map<string, number>()
  private readonly skuCodes: Array<string> = []
  private readonly chunks: Array<Uint32Array> = []
  private readonly holderLists = new WeakMap<Uint32Array, Array<ReadonlyArray<string> | undefined>>()
  /** Where a chunk that gains rows is rebuilt before it is copied back. */
  private scratch = new Uint32Array(1024)
  /** Per slot of the chunk being rebuilt: its rows after, and where its changes start. */
  private readonly sizes = new Int32Array(PER_CHUNK)
  private readonly firstChange = new Int32Array(PER_CHUNK + 1)
  private rowCount = 0

  /** Rows held (a row per node and SKU). */
  get rows(): number {
    return this.rowCount
  }

  /** SKUs with at least one row. */
  get skus(): number {
    return this.skuCodes.length
  }

  readonly unitsOf = (node: string, sku: string): number | undefined => {
    const id = this.skuIds.get(sku)
    if (id === undefined) return undefined
    const nodeId = this.nodeIds.get(node)
    if (nodeId === undefined) return undefined
    const chunk = this.chunks[id >>> SHIFT]!
    const slot = id & SLOT
    const base = chunk[slot]!
    const count = (chunk[slot + 1]! - base) / 3
    const at = indexOfNode(chunk, base, count, nodeId)
    return at < 0 ? undefined : chunk[base + count + at]
  }

  readonly holders = (sku: string): ReadonlyArray<string> => {
    const id = this.skuIds.get(sku)
    if (id === undefined) return NO_HOLDERS
    const chunk = this.chunks[id >>> SHIFT]!
    const slot = id & SLOT
    let lists = this.holderLists.get(chunk)
    if (lists === undefined) {
      lists = []
      this.holderLists.set(chunk, lists)
    }
    let list = lists[slot]
    if (list === undefined) {
      const base = chunk[slot]!
      const count = (chunk[slot + 1]! - base) / 3
      const codes: Array<string> = []
      for (let i = 0; i < count; i++) codes.push(this.nodeCodes[chunk[base + i]!]!)
      list = codes
      lists[slot] = list
    }
    return list
  }

  /** The rows of a SKU with their revisions (for GET /v1/stock/{sku} and tests). */
  holdingsOf(sku: string): ReadonlyArray<StockHolding> {
    const id = this.skuIds.get(sku)
    if (id === undefined) return []
    const chunk = this.chunks[id >>> SHIFT]!
    const slot = id & SLOT
    const base = chunk[slot]!
    const count = (chunk[slot + 1]! - base) / 3
    const rows: Array<StockHolding> = []
    for (let i = 0; i < count; i++) {
      rows.push({ node: this.nodeCodes[chunk[base + i]!]!, units: chunk[base + count + i]!, revision: chunk[base + 2 * count + i]! })
    }
    return rows
  }

  /** Every row, SKU by SKU (tests comparing a replica with the database). */
  *entries(): IterableIterator<{ readonly node: string; readonly sku: string; readonly units: number; readonly revision: number }> {
    for (const sku of this.skuCodes) for (const row of this.holdingsOf(sku)) yield { sku, ...row }
  }

  /**
   * Applies absolute values by revision: a row is taken when the board has none for its node and
   * SKU, or holds an older revision; the same change twice, or an older one after a newer, changes
   * nothing. Of two changes of one row here, the higher revision stands (the later on a tie).
   * A row the board holds is set in place; the rows it does not hold are added chunk by chunk
   * (one rebuild of each chunk that gains rows). Answers how many rows were taken.
   */
  apply(columns: StockColumns): number {
    const count = columns.skus.length
    if (count === 0) return 0
    const skuOf = new Int32Array(count)
    const nodeOf = new Int32Array(count)
    const rowsByChunk = new Map<number, Array<number>>()
    // Where this apply set a row in place (chunk and offset): a later change of it at the same revision stands.
    const setHere = new Set<number>()
    let lastChunk = -1
    let lastRows: Array<number> = []
    let taken = 0
    for (let row = 0; row < count; row++) {
      const sku = this.skuIdOf(columns.skus[row]!)
      const node = this.nodeIdOf(columns.nodes[row]!)
      const chunkIndex = sku >>> SHIFT
      const chunk = this.chunks[chunkIndex]!
      const slot = sku & SLOT
      const base = chunk[slot]!
      const held = (chunk[slot + 1]! - base) / 3
      const at = indexOfNode(chunk, base, held, node)
      if (at >= 0) {
        const revisionAt = base + 2 * held + at
        const revision = columns.revisions[row]!
        const key = chunkIndex * POSITIONS + revisionAt
        if (revision > chunk[revisionAt]! || (revision === chunk[revisionAt] && setHere.has(key))) {
          chunk[base + held + at] = columns.units[row]!
          chunk[revisionAt] = revision
          if (!setHere.has(key)) {
            setHere.add(key)
            taken++
          }
        }
        continue
      }
      skuOf[row] = sku
      nodeOf[row] = node
      if (chunkIndex !== lastChunk) {
        let rows = rowsByChunk.get(chunkIndex)
        if (rows === undefined) {
          rows = []
          rowsByChunk.set(chunkIndex, rows)
        }
        lastChunk = chunkIndex
        lastRows = rows
      }
      lastRows.push(row)
    }
    for (const [chunk, rows] of rowsByChunk) taken += this.applyChunk(chunk, rows, skuOf, nodeOf, columns)
    return taken
  }

  private nodeIdOf(node: string): number {
    let id = this.nodeIds.get(node)
    if (id === undefined) {
      id = this.nodeCodes.length
      this.nodeCodes.push(node)
      this.nodeIds.set(node, id)
    }
    return id
  }

  private skuIdOf(sku: string): number {
    let id = this.skuIds.get(sku)
    if (id === undefined) {
      id = this.skuCodes.length
      this.skuCodes.push(sku)
      this.skuIds.set(sku, id)
      if ((id & SLOT) === 0) this.chunks.push(EMPTY_CHUNK)
    }
    return id
  }

  private applyChunk(
    chunkIndex: number,
    rows: Array<number>,
    skuOf: Int32Array,
    nodeOf: Int32Array,
    columns: StockColumns
  ): number {
    // By SKU, node and position (rows of a replica's load come in that order already).
    const before = (a: number, b: number) => skuOf[a]! - skuOf[b]! || nodeOf[a]! - nodeOf[b]! || a - b
    let ordered = true
    for (let i = 1; i < rows.length && ordered; i++) ordered = before(rows[i - 1]!, rows[i]!) < 0
    if (!ordered) rows.sort(before)
    // One change per SKU and node: the highest revision, the later on a tie.
    let unique = 0
    for (const row of rows) {
      const last = unique > 0 ? rows[unique - 1]! : -1
      if (last >= 0 && skuOf[last] === skuOf[row] && nodeOf[last] === nodeOf[row]) {
        if (columns.revisions[row]! >= columns.revisions[last]!) rows[unique - 1] = row
      } else rows[unique++] = row
    }

    const current = this.chunks[chunkIndex]!
    const sizes = this.sizes
    const firstChange = this.firstChange
    let added = 0
    let taken = 0
    let p = 0
    for (let slot = 0; slot < PER_CHUNK; slot++) {
      firstChange[slot] = p
      const base = current[slot]!
      const count = (current[slot + 1]! - base) / 3
      let size = count
      let i = 0
      while (p < unique && (skuOf[rows[p]!]! & SLOT) === slot) {
        const row = rows[p++]!
        const node = nodeOf[row]!
        while (i < count && current[base + i]! < node) i++
        if (i < count && current[base + i] === node) {
          if (columns.revisions[row]! > current[base + 2 * count + i]!) taken++
        } else {
          size++
          added++
          taken++
        }
      }
      sizes[slot] = size
    }
    firstChange[PER_CHUNK] = p
    if (taken === 0) return 0

    let total = HEADER
    for (let slot = 0; slot < PER_CHUNK; slot++) total += 3 * sizes[slot]!
    // Built aside, then copied into the chunk when it has room (no allocation), else into a new array with room to grow.
    if (this.scratch.length < total) this.scratch = new Uint32Array(total * 2)
    const next = this.scratch
    let offset = HEADER
    for (let slot = 0; slot < PER_CHUNK; slot++) {
      next[slot] = offset
      const base = current[slot]!
      const count = (current[slot + 1]! - base) / 3
      const size = sizes[slot]!
      const from = firstChange[slot]!
      const to = firstChange[slot + 1]!
      if (from === to) next.set(current.subarray(base, base + 3 * count), offset)
      else {
        let i = 0
        let j = from
        for (let out = 0; out < size; out++) {
          const row = j < to ? rows[j]! : -1
          const node = row >= 0 ? nodeOf[row]! : -1
          const held = i < count ? current[base + i]! : -1
          if (row >= 0 && (held < 0 || node <= held)) {
            const newer = node !== held || columns.revisions[row]! > current[base + 2 * count + i]!
            next[offset + out] = node
            next[offset + size + out] = newer ? columns.units[row]! : current[base + count + i]!
            next[offset + 2 * size + out] = newer ? columns.revisions[row]! : current[base + 2 * count + i]!
            if (node === held) i++
            j++
          } else {
            next[offset + out] = held
            next[offset + size + out] = current[base + count + i]!
            next[offset + 2 * size + out] = current[base + 2 * count + i]!
            i++
          }
        }
      }
      offset += 3 * size
    }
    next[PER_CHUNK] = offset
    if (current !== EMPTY_CHUNK && current.length >= total) {
      current.set(next.subarray(0, total))
      // The slots that gained a row list other holders now; the others keep their lists.
      const lists = this.holderLists.get(current)
      if (lists !== undefined) for (let slot = 0; slot < PER_CHUNK; slot++) if (firstChange[slot] !== firstChange[slot + 1]) lists[slot] = undefined
    } else {
      // A chunk filled for the first time (a replica's load) is sized to fit; one that grows gets an eighth more room.
      const room = current === EMPTY_CHUNK ? 0 : Math.max(3 * PER_CHUNK, total >>> 3)
      const grown = new Uint32Array(total + room)
      grown.set(next.subarray(0, total))
      this.chunks[chunkIndex] = grown
    }
    this.rowCount += added
    return taken
  }
}

/** Where node `id` is among the `count` ascending ids from `base` in `chunk`; -1 when absent. */
const indexOfNode = (chunk: Uint32Array, base: number, count: number, id: number): number => {
  let low = 0
  let high = count - 1
  while (low <= high) {
    const middle = (low + high) >>> 1
    const value = chunk[base + middle]!
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
