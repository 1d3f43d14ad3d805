import type { DeliveryMode, DispatchType } from "./Network.ts"
import type { NodeModel, PathIndex, PathsByOrigin, RouteModel, RoutePath, SnapshotOptions } from "./SnapshotModel.ts"

const DISPATCH_TYPES: ReadonlyArray<DispatchType> = ["NORMAL", "EXPRESS"]
const DELIVERY_MODES: ReadonlyArray<DeliveryMode> = ["HOME_DELIVERY", "STORE_WITHDRAWAL"]

const nominalLeadDays = (path: RoutePath): number => {
  let days = 0
  for (const leg of path) days += leg.leadTime.days
  return days
}

const NO_PATHS: PathsByOrigin = new Map()

/** The candidate paths of this dispatch type and mode to `destination`, by origin; none when nothing ships there. */
export const pathsTo = (paths: PathIndex, dispatchType: DispatchType, mode: DeliveryMode, destination: string): PathsByOrigin =>
  paths[dispatchType][mode].get(destination) ?? NO_PATHS

/**
 * Every simple path (no node twice) of at most `maxLegs` legs from every node, per dispatch type
 * and delivery mode. A path ends in a zone (last-mile route) for home delivery, or at a store (TD)
 * for store withdrawal. Done once when the snapshot is built.
 */
export const searchPaths = (
  nodes: ReadonlyMap<string, NodeModel>,
  outgoing: ReadonlyMap<string, ReadonlyArray<RouteModel>>,
  options: SnapshotOptions
): PathIndex => {
  const byDestination = () => ({ HOME_DELIVERY: new Map<string, Map<string, Array<RoutePath>>>(), STORE_WITHDRAWAL: new Map<string, Map<string, Array<RoutePath>>>() })
  const found = { NORMAL: byDestination(), EXPRESS: byDestination() }

  for (const origin of nodes.values()) {
    for (const dispatchType of DISPATCH_TYPES) {
      for (const mode of DELIVERY_MODES) {
        const destinations = found[dispatchType][mode]
        const record = (destination: string, path: RoutePath) => {
          let origins = destinations.get(destination)
          if (origins === undefined) destinations.set(destination, origins = new Map())
          const list = origins.get(origin.code)
          if (list === undefined) origins.set(origin.code, [path])
          else list.push(path)
        }
        if (mode === "STORE_WITHDRAWAL" && origin.node.type === "TD") record(origin.code, [])
        const visited = new Set<string>([origin.code])
        const walk = (at: string, path: Array<RouteModel>) => {
          if (path.length >= options.maxLegs) return
          for (const route of outgoing.get(at) ?? []) {
            if (!route.dispatchTypes.has(dispatchType) || !route.deliveryModes.has(mode)) continue
            const next = [...path, route]
            if (route.targetNode === undefined) {
              if (mode === "HOME_DELIVERY") for (const zone of route.targetZones) record(zone, next)
              continue
            }
            const target = route.targetNode
            if (visited.has(target.code)) continue
            if (mode === "STORE_WITHDRAWAL" && target.node.type === "TD") record(target.code, next)
            visited.add(target.code)
            walk(target.code, next)
            visited.delete(target.code)
          }
        }
        walk(origin.code, [])
      }
    }
  }

  for (const dispatchType of DISPATCH_TYPES) {
    for (const mode of DELIVERY_MODES) {
      for (const origins of found[dispatchType][mode].values()) {
        for (const [origin, list] of origins) {
          list.sort((a, b) => a.length - b.length || nominalLeadDays(a) - nominalLeadDays(b))
          origins.set(origin, list.slice(0, options.maxCandidates))
        }
      }
    }
  }
  return found
}
