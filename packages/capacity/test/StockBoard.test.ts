import fc from "fast-check"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import {
  buildSnapshotOn,
  decodeNetwork,
  decodeStockBatch,
  defaultSnapshotOptions,
  demoNetwork,
  MAX_STOCK_BATCH_ROWS,
  originIndexOf,
  StockBoard,
  stockBoardOf,
  type StockColumns,
  UsageBoard
} from "../src/index.ts"

interface Row {
  readonly node: string
  readonly sku: string
  readonly units: number
  readonly revision: number
}

const columns = (rows: ReadonlyArray<Row>): StockColumns => ({
  nodes: rows.map((row) => row.node),
  skus: rows.map((row) => row.sku),
  units: rows.map((row) => row.units),
  revisions: rows.map((row) => row.revision)
})

describe("StockBoard", () => {
  it("holds units per node and SKU; a node without a row is undefined, a row at 0 is 0", () => {
    const board = new StockBoard()
    expect(board.apply(columns([
      { node: "CD1", sku: "A", units: 5, revision: 1 },
      { node: "TD1", sku: "A", units: 0, revision: 1 },
      { node: "CD1", sku: "B", units: 7, revision: 1 }
    ]))).toBe(3)
    expect(board.unitsOf("CD1", "A")).toBe(5)
    expect(board.unitsOf("TD1", "A")).toBe(0)
    expect(board.unitsOf("TD1", "B")).toBeUndefined()
    expect(board.unitsOf("NOPE", "A")).toBeUndefined()
    expect(board.unitsOf("CD1", "NOPE")).toBeUndefined()
    expect(board.holders("A")).toEqual(["CD1", "TD1"])
    expect(board.holders("NOPE")).toEqual([])
    expect(board.rows).toBe(3)
    expect(board.skus).toBe(2)
  })

  it("takes a row only with a newer revision: a replay or an older change leaves it; units change in place, a new row builds its chunk anew", () => {
    const board = new StockBoard()
    // 16 SKUs a chunk, by first appearance: A is in the first, B (the 18th SKU) in the second.
    const fillers = Array.from({ length: 16 }, (_, i) => ({ node: "TD1", sku: `F${i}`, units: i, revision: 1 }))
    board.apply(columns([{ node: "CD1", sku: "A", units: 5, revision: 3 }, ...fillers, { node: "CD1", sku: "B", units: 1, revision: 1 }]))
    const holdersOfA = board.holders("A")
    const holdersOfB = board.holders("B")
    expect(board.apply(columns([{ node: "CD1", sku: "A", units: 9, revision: 3 }]))).toBe(0)
    expect(board.apply(columns([{ node: "CD1", sku: "A", units: 9, revision: 2 }]))).toBe(0)
    expect(board.unitsOf("CD1", "A")).toBe(5)
    expect(board.apply(columns([{ node: "CD1", sku: "A", units: 4, revision: 4 }]))).toBe(1)
    expect(board.unitsOf("CD1", "A")).toBe(4)
    // Units changed, not the nodes holding A: its holder list (cached per chunk array) is the same one.
    expect(board.holders("A")).toBe(holdersOfA)
    expect(board.apply(columns([{ node: "TD1", sku: "A", units: 2, revision: 1 }, { node: "CD1", sku: "A", units: 6, revision: 5 }]))).toBe(2)
    expect(board.holdingsOf("A")).toEqual([{ node: "CD1", units: 6, revision: 5 }, { node: "TD1", units: 2, revision: 1 }])
    expect(board.holders("A")).not.toBe(holdersOfA)
    expect(board.holders("A")).toEqual(["CD1", "TD1"])
    expect(board.holders("B")).toBe(holdersOfB)
    expect(board.rows).toBe(19)
    // A chunk grown once has room: the next row added to it is copied in place, and only its SKU's list changes.
    const holdersOfF0 = board.holders("F0")
    const holdersOfA2 = board.holders("A")
    expect(board.apply(columns([{ node: "CD1", sku: "F0", units: 8, revision: 1 }]))).toBe(1)
    expect(board.holders("F0")).toEqual(["CD1", "TD1"])
    expect(board.holders("A")).toBe(holdersOfA2)
    expect(board.holders("F0")).not.toBe(holdersOfF0)
    expect(board.holdingsOf("A")).toEqual([{ node: "CD1", units: 6, revision: 5 }, { node: "TD1", units: 2, revision: 1 }])
  })

  it("of two changes of a held row in one apply, the higher revision stands, the later one on a tie; each row counts once", () => {
    const board = new StockBoard()
    board.apply(columns([{ node: "CD1", sku: "A", units: 1, revision: 1 }, { node: "TD1", sku: "A", units: 1, revision: 1 }]))
    expect(board.apply(columns([
      { node: "CD1", sku: "A", units: 2, revision: 3 },
      { node: "CD1", sku: "A", units: 3, revision: 2 },
      { node: "TD1", sku: "A", units: 4, revision: 2 },
      { node: "TD1", sku: "A", units: 5, revision: 2 },
      { node: "TD1", sku: "A", units: 6, revision: 1 }
    ]))).toBe(2)
    expect(board.holdingsOf("A")).toEqual([{ node: "CD1", units: 2, revision: 3 }, { node: "TD1", units: 5, revision: 2 }])
  })

  it("of two changes of one row in one apply, the higher revision stands, the later one on a tie", () => {
    const board = new StockBoard()
    board.apply(columns([
      { node: "CD1", sku: "A", units: 1, revision: 2 },
      { node: "CD1", sku: "A", units: 2, revision: 1 },
      { node: "TD1", sku: "A", units: 3, revision: 1 },
      { node: "TD1", sku: "A", units: 4, revision: 1 }
    ]))
    expect(board.holdingsOf("A")).toEqual([{ node: "CD1", units: 1, revision: 2 }, { node: "TD1", units: 4, revision: 1 }])
  })

  it("any sequence of applies ends where a Map keeping each row's highest revision ends (fast-check)", () => {
    const change = fc.record({
      node: fc.constantFrom("N0", "N1", "N2", "N3", "N4", "N5"),
      // Up to 40 SKUs: three chunks of 16.
      sku: fc.nat({ max: 39 }).map((i) => `S${i}`),
      units: fc.nat({ max: 1000 }),
      revision: fc.nat({ max: 20 })
    })
    fc.assert(fc.property(fc.array(fc.array(change, { maxLength: 60 }), { maxLength: 12 }), (batches) => {
      const board = new StockBoard()
      const model = new Map<string, Row>()
      for (const batch of batches) {
        board.apply(columns(batch))
        // Within a batch the highest revision of a row stands (the later on a tie); across batches, only a higher one.
        const winners = new Map<string, Row>()
        for (const row of batch) {
          const key = `${row.node}|${row.sku}`
          const seen = winners.get(key)
          if (seen === undefined || row.revision >= seen.revision) winners.set(key, row)
        }
        for (const [key, row] of winners) {
          const held = model.get(key)
          if (held === undefined || row.revision > held.revision) model.set(key, row)
        }
        // Holder lists are cached: after every apply they list the nodes holding each SKU now.
        for (let i = 0; i < 40; i++) {
          const nodes = [...model.values()].filter((row) => row.sku === `S${i}`).map((row) => row.node)
          expect([...board.holders(`S${i}`)].sort()).toEqual(nodes.sort())
        }
      }
      for (const [key, row] of model) {
        const [node, sku] = key.split("|") as [string, string]
        expect(board.unitsOf(node, sku), key).toBe(row.units)
      }
      expect(board.rows).toBe(model.size)
      // Every row's nodes are kept ascending (binary search): each holder finds its units.
      for (let i = 0; i < 40; i++) for (const node of board.holders(`S${i}`)) expect(board.unitsOf(node, `S${i}`)).toBeDefined()
    }))
  })

  it("when each change of a row has its own revision, neither their order nor their batching matters (fast-check)", () => {
    const changes = fc.array(fc.record({
      node: fc.constantFrom("N0", "N1", "N2", "N3"),
      sku: fc.nat({ max: 39 }).map((i) => `S${i}`),
      units: fc.nat({ max: 1000 })
    }), { maxLength: 120 }).chain((list) => {
      const rows: ReadonlyArray<Row> = list.map((change, i) => ({ ...change, revision: i + 1 }))
      return fc.tuple(fc.constant(rows), fc.shuffledSubarray([...rows], { minLength: rows.length, maxLength: rows.length }), fc.integer({ min: 1, max: 6 }))
    })
    fc.assert(fc.property(changes, ([inOrder, shuffled, batchSize]) => {
      const once = new StockBoard()
      once.apply(columns(inOrder))
      const piecemeal = new StockBoard()
      for (let from = 0; from < shuffled.length; from += batchSize) piecemeal.apply(columns(shuffled.slice(from, from + batchSize)))
      piecemeal.apply(columns(shuffled))
      const sorted = (board: StockBoard) => [...board.entries()].sort((a, b) => `${a.sku}|${a.node}`.localeCompare(`${b.sku}|${b.node}`))
      expect(sorted(piecemeal)).toEqual(sorted(once))
    }))
  })

  it("a document's stock adds up entries of one node and SKU, as a snapshot always did", () => {
    const board = stockBoardOf([{ node: "CD1", sku: "A", units: 2 }, { node: "CD1", sku: "A", units: 3 }])
    expect(board.unitsOf("CD1", "A")).toBe(5)
  })
})

describe("OriginIndex over a StockBoard", () => {
  it("reads the board now: a change shows without a new snapshot, and holders are the snapshot's nodes holding a row", () => {
    const document = Result.getOrThrow(decodeNetwork(demoNetwork))
    const board = new StockBoard()
    board.apply(columns([
      { node: "CD-LURIN", sku: "X", units: 4, revision: 1 },
      { node: "TD-SURCO", sku: "X", units: 0, revision: 1 },
      { node: "TD-GONE", sku: "X", units: 9, revision: 1 }
    ]))
    const snapshot = buildSnapshotOn(document, new UsageBoard().cellOf, defaultSnapshotOptions, board)
    const index = originIndexOf(snapshot)
    expect([...index.holders("X")].sort()).toEqual(["CD-LURIN", "TD-SURCO"])
    expect(index.holders("X")).toBe(index.holders("X"))
    expect(index.stockOf("CD-LURIN", "X")).toBe(4)
    board.apply(columns([{ node: "CD-LURIN", sku: "X", units: 1, revision: 2 }, { node: "TD-MIRAFLORES", sku: "X", units: 2, revision: 1 }]))
    expect(originIndexOf(snapshot)).toBe(index)
    expect(index.stockOf("CD-LURIN", "X")).toBe(1)
    expect([...index.holders("X")].sort()).toEqual(["CD-LURIN", "TD-MIRAFLORES", "TD-SURCO"])
    expect(index.holders("NONE")).toEqual([])
  })
})

describe("decodeStockBatch", () => {
  const isNode = (code: string) => code === "CD1" || code === "TD1"
  const issues = (input: unknown) =>
    Result.match(decodeStockBatch(input, isNode), { onSuccess: () => [], onFailure: (error) => error.issues.map((issue) => issue.path) })

  it("reads a batch as columns; of two changes of one row, the later in the batch stands", () => {
    const decoded = decodeStockBatch({
      sequence: 7,
      changes: [{ node: "CD1", sku: "A", units: 1 }, { node: "TD1", sku: "A", units: 2 }, { node: "CD1", sku: "A", units: 3 }]
    }, isNode)
    expect(Result.getOrThrow(decoded)).toEqual({ sequence: 7, received: 3, nodes: ["CD1", "TD1"], skus: ["A", "A"], units: [3, 2] })
  })

  it("names every bad field: unknown node, negative or fractional units, a bad code, a bad or missing sequence", () => {
    expect(issues({ sequence: 1, changes: [{ node: "XX", sku: "A", units: 1 }] })).toEqual(["changes[0].node"])
    expect(issues({ sequence: 1, changes: [{ node: "CD1", sku: "A", units: -1 }, { node: "CD1", sku: " A", units: 1.5 }] }))
      .toEqual(["changes[0].units", "changes[1].sku", "changes[1].units"])
    expect(issues({ changes: [{ node: "CD1", sku: "A", units: 1 }] })).toEqual(["sequence"])
    expect(issues({ sequence: -2, changes: [] })).toEqual(["sequence", "changes"])
    expect(issues({ sequence: 1, changes: [{ node: "CD1", sku: "A", units: 2 ** 31 }] })).toEqual(["changes[0].units"])
    expect(issues({ sequence: 1, changes: Array.from({ length: MAX_STOCK_BATCH_ROWS + 1 }, () => ({ node: "CD1", sku: "A", units: 1 })) }))
      .toEqual(["changes"])
    expect(issues([])).toEqual(["(root)"])
    const message = Result.match(decodeStockBatch({ sequence: 1, changes: [{ node: "XX", sku: "A", units: -1 }] }, isNode), {
      onSuccess: () => "",
      onFailure: (error) => error.message
    })
    expect(message).toBe("changes[0].node: unknown node \"XX\" (not in the current network); changes[0].units: expected an integer between 0 and 2147483647, got -1")
  })
})
