import type { CapacityPool, CapacityResource } from "@retail/capacity"
import { Schema } from "effect"

/** How a ledger resource is stored: (kind, code, slot); see CapacitySchema.ts. */
export interface ResourceColumns {
  readonly kind: string
  readonly code: string
  readonly slot: string
}

export const columnsOf = (resource: CapacityResource): ResourceColumns => {
  switch (resource._tag) {
    case "Picking":
      return { kind: "PICKING", code: resource.node, slot: resource.pool }
    case "NodeDispatch":
      return { kind: "NODE_DISPATCH", code: resource.node, slot: resource.pool }
    case "RouteDeparture":
      return { kind: "ROUTE_DEPARTURE", code: resource.route, slot: "" }
    case "ZoneWindow":
      return { kind: "ZONE_WINDOW", code: resource.zone, slot: resource.window }
  }
}

const isPool = (slot: string): slot is CapacityPool => slot === "ALL" || slot === "NORMAL" || slot === "EXPRESS"

/** undefined for a row this version does not know (written by a newer one): it is skipped, not misread. */
export const resourceOf = (columns: ResourceColumns): CapacityResource | undefined => {
  switch (columns.kind) {
    case "PICKING":
      return isPool(columns.slot) ? { _tag: "Picking", node: columns.code, pool: columns.slot } : undefined
    case "NODE_DISPATCH":
      return isPool(columns.slot) ? { _tag: "NodeDispatch", node: columns.code, pool: columns.slot } : undefined
    case "ROUTE_DEPARTURE":
      return { _tag: "RouteDeparture", route: columns.code }
    case "ZONE_WINDOW":
      return { _tag: "ZoneWindow", zone: columns.code, window: columns.slot }
    default:
      return undefined
  }
}

export const UsageRow = Schema.Struct({
  kind: Schema.String,
  code: Schema.String,
  slot: Schema.String,
  day: Schema.String,
  used: Schema.Number,
  revision: Schema.Number
})
export type UsageRow = typeof UsageRow.Type

export const LedgerRow = Schema.Struct({
  orderId: Schema.String,
  kind: Schema.String,
  code: Schema.String,
  slot: Schema.String,
  day: Schema.String,
  units: Schema.Number
})
export type LedgerRow = typeof LedgerRow.Type

/** A resource's absolute usage on a date and the revision of that row (see migration0003). */
export interface UsageState {
  readonly resource: CapacityResource
  readonly date: string
  readonly used: number
  readonly revision: number
}

export const stateOfRow = (row: UsageRow): UsageState | undefined => {
  const resource = resourceOf(row)
  return resource === undefined ? undefined : { resource, date: row.day, used: row.used, revision: row.revision }
}

export const statesOfRows = (rows: ReadonlyArray<UsageRow>): ReadonlyArray<UsageState> => {
  const states: Array<UsageState> = []
  for (const row of rows) {
    const state = stateOfRow(row)
    if (state !== undefined) states.push(state)
  }
  return states
}
