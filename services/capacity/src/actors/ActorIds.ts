import type { CapacityResource, NetworkDocument } from "@retail/capacity"

/** Who owns a resource's usage: the node (picking, dispatch), the route (departures) or the zone (windows). */
export interface ActorId {
  readonly kind: "node" | "route" | "zone"
  readonly code: string
}

export const actorKey = (id: ActorId): string => `${id.kind}:${id.code}`

export const ownerOf = (resource: CapacityResource): ActorId => {
  switch (resource._tag) {
    case "Picking":
    case "NodeDispatch":
      return { kind: "node", code: resource.node }
    case "RouteDeparture":
      return { kind: "route", code: resource.route }
    case "ZoneWindow":
      return { kind: "zone", code: resource.zone }
  }
}

/** The `capacity_usage.kind` values an actor owns (see packages/store CapacitySchema.ts). */
export const storedKindsOf = (id: ActorId): ReadonlyArray<string> => {
  switch (id.kind) {
    case "node":
      return ["PICKING", "NODE_DISPATCH"]
    case "route":
      return ["ROUTE_DEPARTURE"]
    case "zone":
      return ["ZONE_WINDOW"]
  }
}

/** One actor per node, route and zone of a network. */
export const actorsOf = (document: NetworkDocument): ReadonlyArray<ActorId> => [
  ...document.nodes.map((node) => ({ kind: "node" as const, code: node.code })),
  ...document.routes.map((route) => ({ kind: "route" as const, code: route.id })),
  ...document.zones.map((zone) => ({ kind: "zone" as const, code: zone.code }))
]
