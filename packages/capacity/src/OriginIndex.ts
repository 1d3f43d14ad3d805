import type { OriginCandidate } from "./OriginSearch.ts"
import type { NodeModel, Snapshot } from "./SnapshotModel.ts"

/**
 * What variant B's origin search asks of a snapshot for every candidate of every request, built
 * once per snapshot (a snapshot never changes): without it, each question built a key string.
 */
export interface OriginIndex {
  /** Nodes that can ship items (hubs only cross-dock), in the snapshot's node order. */
  readonly origins: ReadonlyArray<OriginCandidate>
  /** Stores (TD), in the snapshot's node order. */
  readonly stores: ReadonlyArray<OriginCandidate>
  /** Units of a SKU at a node (`snapshot.stock`, read now: stock changes without a new snapshot); undefined when the node does not carry it. */
  readonly stockOf: (node: string, sku: string) => number | undefined
  /** The nodes of the snapshot for which `stockOf(node, sku)` is not undefined (units 0 included), read now; [] when none. */
  readonly holders: (sku: string) => ReadonlyArray<string>
}

const indexes = new WeakMap<Snapshot, OriginIndex>()

export const originIndexOf = (snapshot: Snapshot): OriginIndex => {
  let index = indexes.get(snapshot)
  if (index === undefined) {
    index = buildIndex(snapshot)
    indexes.set(snapshot, index)
  }
  return index
}

const candidateOf = (model: NodeModel): OriginCandidate => ({ code: model.code, point: model.node.address })

const buildIndex = (snapshot: Snapshot): OriginIndex => {
  const nodes = [...snapshot.nodes.values()]
  const stock = snapshot.stock
  // The board's holder lists keep their identity until their SKU changes: each is filtered to the
  // snapshot's nodes once (stock may hold rows of a node a later network dropped).
  const ofSnapshot = new WeakMap<ReadonlyArray<string>, ReadonlyArray<string>>()
  const holdersOf = (sku: string): ReadonlyArray<string> => {
    const all = stock.holders(sku)
    let kept = ofSnapshot.get(all)
    if (kept === undefined) {
      kept = all.every((code) => snapshot.nodes.has(code)) ? all : all.filter((code) => snapshot.nodes.has(code))
      ofSnapshot.set(all, kept)
    }
    return kept
  }
  return {
    origins: nodes.filter((model) => model.node.type !== "HUB").map(candidateOf),
    stores: nodes.filter((model) => model.node.type === "TD").map(candidateOf),
    stockOf: (node, sku) => stock.unitsOf(node, sku),
    holders: holdersOf
  }
}
