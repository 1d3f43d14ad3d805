import { demoNetwork, MAX_STOCK_UNITS, type StockBatchColumns, StockBoard, type StockColumns, type StockEntry, type StockView } from "@retail/capacity"
import { CapacityRepository, type StockSets, StockRepository, type StockWritten } from "@retail/store"
import { Cause, Clock, Context, Duration, Effect, Layer } from "effect"
import { StockConfig } from "./StockConfig.ts"
import { StockEvents, type StockPart } from "./StockEvents.ts"

/** Rows per query when a replica loads the table. */
const LOAD_CHUNK = 100_000
/** Rows per query when the reconciler reads a transaction's rows. */
const RECONCILE_PAGE = 20_000
/** Rows per statement when a network document's stock is set. */
const DOCUMENT_CHUNK = 10_000

export interface StockFed {
  readonly sequence: number
  /** Changes in the body, duplicates included. */
  readonly received: number
  /** Distinct node and SKU pairs of the batch. */
  readonly rows: number
  /** Rows set: they had no row yet, or an older sequence. */
  readonly applied: number
  /** Rows left alone: their stored sequence was this batch's or newer (a replay, or a late batch). */
  readonly stale: number
}

/**
 * This process's stock: every row of capacity_stock in a StockBoard (compact, replaced per SKU),
 * which snapshots read through (`view`). A batch of the feed goes to Postgres in one statement,
 * then to the board, then onto the stock stream for the other processes; they apply it by
 * revision, as they apply what they load and reconcile, so order and repetition do not matter.
 */
export class StockReplica extends Context.Service<StockReplica>()("@retail/capacity/StockReplica", {
  make: Effect.gen(function*() {
    const repository = yield* StockRepository
    const events = yield* StockEvents
    const { reconcileIntervalMs } = yield* StockConfig
    // Taken before anything is loaded: an entry committed after the load is after this position.
    const position = yield* events.position

    // An empty database gets the demo network first (as CapacityNetwork does), then the stock of
    // the stored network, so a database migrated under the previous release keeps its stock.
    yield* Effect.flatMap(CapacityRepository, (capacity) => capacity.initNetwork(demoNetwork))
    yield* repository.seedFromNetwork

    const board = new StockBoard()

    /** Every row, chunk by chunk in key order, applied by revision; answers the reconciler's first watermark. */
    const loadAll = Effect.gen(function*() {
      const started = yield* Clock.currentTimeMillis
      const watermark = yield* repository.watermark
      let after: { readonly sku: string; readonly node: string } | undefined
      let loaded = 0
      while (true) {
        const chunk = yield* repository.loadChunk(after, LOAD_CHUNK)
        const count = chunk.skus.length
        if (count === 0) break
        board.apply(chunk)
        loaded += count
        after = { sku: chunk.skus[count - 1]!, node: chunk.nodes[count - 1]! }
        if (count < LOAD_CHUNK) break
      }
      const took = (yield* Clock.currentTimeMillis) - started
      yield* Effect.logInfo(`stock: ${loaded} rows of ${board.skus} SKUs loaded from Postgres in ${took} ms`)
      return watermark
    })

    let watermark = yield* loadAll

    /**
     * The transactions whose every row this replica received since the reconciler's watermark:
     * its own commits, and other processes' once all their entries came. The reconciler reads only
     * the rows of the others.
     */
    let heard = new Set<string>()
    const partsHeard = new Map<string, number>()

    const applyPart = (rows: StockColumns, part: StockPart) =>
      Effect.sync(() => {
        board.apply(rows)
        if (part.writer === undefined) return
        const received = (partsHeard.get(part.writer) ?? 0) + rows.skus.length
        if (received >= part.of) {
          partsHeard.delete(part.writer)
          heard.add(part.writer)
        } else partsHeard.set(part.writer, received)
      })

    yield* events.follow(position, {
      apply: applyPart,
      resync: Effect.map(loadAll, (next) => {
        watermark = next
      })
    })

    /**
     * The transactions that wrote rows since the last pass, and the rows of those this replica did
     * not hear of (an entry lost, or rows written straight to PostgreSQL), applied by revision.
     */
    const reconcile = Effect.gen(function*() {
      const next = yield* repository.watermark
      const writers = yield* repository.writersSince(watermark)
      for (const writer of writers) {
        if (heard.has(writer)) continue
        let after: { readonly sku: string; readonly node: string } | undefined
        while (true) {
          const page = yield* repository.loadWrittenBy(writer, after, RECONCILE_PAGE)
          const count = page.skus.length
          board.apply(page)
          if (count < RECONCILE_PAGE) break
          after = { sku: page.skus[count - 1]!, node: page.nodes[count - 1]! }
        }
      }
      // Transactions below the new watermark have ended: the next pass does not list them.
      const floor = BigInt(next)
      heard = new Set([...heard].filter((writer) => BigInt(writer) >= floor))
      for (const writer of partsHeard.keys()) if (BigInt(writer) < floor) partsHeard.delete(writer)
      watermark = next
    })

    if (reconcileIntervalMs > 0) {
      const pass = reconcile.pipe(
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause) ? Effect.interrupt : Effect.logError("stock: reconciling with Postgres failed; next pass retries", cause)
        )
      )
      yield* Effect.sleep(Duration.millis(reconcileIntervalMs)).pipe(Effect.andThen(pass), Effect.forever, Effect.forkScoped)
    }

    /** After the commit: this replica first, then the others. */
    const committed = (written: StockWritten) =>
      Effect.andThen(
        Effect.sync(() => {
          board.apply(written.rows)
          if (written.writer !== undefined) heard.add(written.writer)
        }),
        events.publish(written)
      )

    /** One batch of the feed (decoded by decodeStockBatch): one statement, whatever its size. */
    const feed = (batch: StockBatchColumns) =>
      Effect.gen(function*() {
        const written = yield* repository.applySets(batch.sequence, batch)
        yield* committed(written)
        const rows = batch.skus.length
        const applied = written.rows.skus.length
        return { sequence: batch.sequence, received: batch.received, rows, applied, stale: rows - applied } satisfies StockFed
      })

    /**
     * A network document's stock (PUT /v1/network): its rows are set to its units whatever their
     * sequence; rows it does not list are left as they are. Entries of one node and SKU add up.
     */
    const setDocumentStock = (entries: ReadonlyArray<StockEntry>) =>
      Effect.gen(function*() {
        const summed = new Map<string, { node: string; sku: string; units: number }>()
        for (const entry of entries) {
          const key = `${entry.node}\u0000${entry.sku}`
          const seen = summed.get(key)
          if (seen === undefined) summed.set(key, { node: entry.node, sku: entry.sku, units: entry.units })
          else seen.units = Math.min(MAX_STOCK_UNITS, seen.units + entry.units)
        }
        const rows = [...summed.values()]
        for (let from = 0; from < rows.length; from += DOCUMENT_CHUNK) {
          const chunk = rows.slice(from, from + DOCUMENT_CHUNK)
          const sets: StockSets = { nodes: chunk.map((row) => row.node), skus: chunk.map((row) => row.sku), units: chunk.map((row) => row.units) }
          yield* committed(yield* repository.setUnits(sets))
        }
      })

    const view: StockView = board

    return {
      view,
      feed,
      setDocumentStock,
      reconcile,
      holdingsOf: (sku: string) => board.holdingsOf(sku),
      /** For tests and diagnostics: every row this replica holds. */
      rows: Effect.sync(() => [...board.entries()])
    } as const
  })
}) {
  /** Needs StockRepository, CapacityRepository, StockEvents and StockConfig; the follower and the reconciler live as long as the layer. */
  static readonly layer = Layer.effect(this, this.make)
}
