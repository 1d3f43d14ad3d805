import type { DeliveryMode, DispatchType } from "./Network.ts"
import type { NodeModel, RouteModel, RoutePath, SnapshotOptions } from "./SnapshotModel.ts"

const DISPATCH_TYPES: ReadonlyArray<DispatchType> = ["NORMAL", "EXPRESS"]
const DELIVERY_MODES: ReadonlyArray<DeliveryMode> = ["HOME_DELIVERY", "STORE_WITHDRAWAL"]

const nominalLeadDays = (path: RoutePath): number => {
  let days = 0
  for (const leg of path) days += leg.leadTime.days
  return days
}

/**
 * Every simple path (no node twice) of at most `maxLegs` legs from every node, per dispatch type
 * and delivery mode, keyed like `pathKey`. A path ends in a zone (last-mile route) for home
 * delivery, or at a store (TD) for store withdrawal. Done once when the snapshot is built.
 */
export const searchPaths = (
  nodes: ReadonlyMap<string, NodeModel>,
  outgoing: ReadonlyMap<string, ReadonlyArray<RouteModel>>,
  options: SnapshotOptions
): ReadonlyMap<string, ReadonlyArray<RoutePath>> => {
  const found = new Map<string, Array<RoutePath>>()
  const record = (key: string, path: RoutePath) => {
    const list = found.get(key)
    if (list === undefined) found.set(key, [path])
    else list.push(path)
  }

  for (const origin of nodes.values()) {
    for (const dispatchType of DISPATCH_TYPES) {
      for (const mode of DELIVERY_MODES) {
        const prefix = `${origin.code}|${dispatchType}|${mode}|`
        if (mode === "STORE_WITHDRAWAL" && origin.node.type === "TD") record(prefix + origin.code, [])
        const visited = new Set<string>([origin.code])
        const walk = (at: string, path: Array<RouteModel>) => {
          if (path.length >= options.maxLegs) return
          for (const route of outgoing.get(at) ?? []) {
            if (!route.dispatchTypes.has(dispatchType) || !route.deliveryModes.has(mode)) continue
            const next = [...path, route]
            if (route.targetNode === undefined) {
              if (mode === "HOME_DELIVERY") for (const zone of route.targetZones) record(prefix + zone, next)
              continue
            }
            const target = route.targetNode
            if (visited.has(target.code)) continue
            if (mode === "STORE_WITHDRAWAL" && target.node.type === "TD") record(prefix + target.code, next)
            visited.add(target.code)
            walk(target.code, next)
            visited.delete(target.code)
          }
        }
        walk(origin.code, [])
      }
    }
  }

  for (const [key, list] of found) {
    list.sort((a, b) => a.length - b.length || nominalLeadDays(a) - nominalLeadDays(b))
    found.set(key, list.slice(0, options.maxCandidates))
  }
  return found
}
