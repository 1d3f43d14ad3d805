import type { DeliveryMode, DispatchType } from "./Network.ts"
import type { OriginCandidate } from "./OriginSearch.ts"
import { pathKey, stockKey } from "./Snapshot.ts"
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
  /** `snapshot.stock` at `stockKey(node, sku)`: units of a SKU at a node, undefined when the node does not carry it. */
  readonly stockOf: (node: string, sku: string) => number | undefined
  /** The nodes of the snapshot for which `stockOf(node, sku)` is not undefined, in no particular order. */
  readonly holders: (sku: string) => ReadonlyArray<string>
  /** The nodes with a path of this type and mode to `destination` (`snapshot.paths` has their `pathKey`). */
  readonly servingNodes: (dispatchType: DispatchType, mode: DeliveryMode, destination: string) => ReadonlySet<string>
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
  // By node, then SKU: every stock key `node|sku` of a node of the snapshot, split at that node's
  // code (codes may hold "|", so a key is matched against each node, as stockKey would build it).
  const stockByNode = new Map<string, Map<string, number>>()
  for (const [key, units] of snapshot.stock) {
    for (const model of nodes) {
      if (key.length <= model.code.length || !key.startsWith(model.code) || key[model.code.length] !== "|") continue
      let bySku = stockByNode.get(model.code)
      if (bySku === undefined) {
        bySku = new Map()
        stockByNode.set(model.code, bySku)
      }
      bySku.set(key.slice(model.code.length + 1), units)
    }
  }
  const serving = new Map<string, ReadonlySet<string>>()
  let holdersBySku: Map<string, Array<string>> | undefined
  const noHolders: ReadonlyArray<string> = []
  return {
    origins: nodes.filter((model) => model.node.type !== "HUB").map(candidateOf),
    stores: nodes.filter((model) => model.node.type === "TD").map(candidateOf),
    stockOf: (node, sku) => {
      const bySku = stockByNode.get(node)
      if (bySku !== undefined) return bySku.get(sku)
      return snapshot.nodes.has(node) ? undefined : snapshot.stock.get(stockKey(node, sku))
    },
    holders: (sku) => {
      if (holdersBySku === undefined) {
        holdersBySku = new Map()
        for (const [node, bySku] of stockByNode) {
          for (const held of bySku.keys()) {
            const list = holdersBySku.get(held)
            if (list === undefined) holdersBySku.set(held, [node])
            else list.push(node)
          }
        }
      }
      return holdersBySku.get(sku) ?? noHolders
    },
    servingNodes: (dispatchType, mode, destination) => {
      const key = `${dispatchType}|${mode}|${destination}`
      let found = serving.get(key)
      if (found === undefined) {
        const codes = new Set<string>()
        for (const model of nodes) if (snapshot.paths.has(pathKey(model.code, dispatchType, mode, destination))) codes.add(model.code)
        found = codes
        serving.set(key, found)
      }
      return found
    }
  }
}
