import { Data, Result, Schema } from "effect"
import { between, Int, minItems } from "./Checks.ts"
import { type FieldIssue, formatIssues } from "./DecodeError.ts"
import type { CapacityPool } from "./Ledger.ts"
import { type CapacityByDispatchType, Code, DispatchType, LocalDate, type NetworkDocument, Units } from "./Network.ts"
import { MAX_UNITS } from "./UnitBounds.ts"

/** Most changes in one batch: a feed sends more as several batches. */
export const MAX_NETWORK_CHANGES = 10_000

export const NetworkChangeSequence = Int.check(between(0, Number.MAX_SAFE_INTEGER))

/** null: the network document's own capacity again on that date. */
const OverrideUnits = Schema.NullOr(Units).annotate({ description: "The capacity on that date; null: the network's own again" })

export const HolidayChange = Schema.Struct({
  kind: Schema.Literal("HOLIDAY"),
  node: Code,
  date: LocalDate,
  holiday: Schema.Boolean.annotate({ description: "true: the node does not work that date; false: it works (a holiday of the document lifted)" })
}).annotate({ identifier: "HolidayChange" })

export const BlockedChange = Schema.Struct({
  kind: Schema.Literal("BLOCKED"),
  zone: Code,
  window: Schema.optional(Code).annotate({ description: "One delivery window of the zone; left out: the whole zone (as its blockedDates)" }),
  date: LocalDate,
  blocked: Schema.Boolean.annotate({ description: "true: no delivery that date (in that window); false: open (a blocked date of the document lifted)" })
}).annotate({ identifier: "BlockedChange" })

export const NodeCapacityChange = Schema.Struct({
  kind: Schema.Literals(["PICKING_CAPACITY", "NODE_DISPATCH_CAPACITY"]),
  node: Code,
  dispatchType: Schema.optional(DispatchType).annotate({
    description: "Required when the node's capacity is given per dispatch type; left out when it is one number for both"
  }),
  date: LocalDate,
  units: OverrideUnits
}).annotate({ identifier: "NodeCapacityChange" })

export const RouteCapacityChange = Schema.Struct({
  kind: Schema.Literal("ROUTE_CAPACITY"),
  route: Code,
  date: LocalDate,
  units: OverrideUnits
}).annotate({ identifier: "RouteCapacityChange" })

export const WindowCapacityChange = Schema.Struct({
  kind: Schema.Literal("ZONE_WINDOW_CAPACITY"),
  zone: Code,
  window: Code,
  date: LocalDate,
  units: OverrideUnits
}).annotate({ identifier: "WindowCapacityChange" })

export const NetworkChange = Schema.Union([HolidayChange, BlockedChange, NodeCapacityChange, RouteCapacityChange, WindowCapacityChange])
export type NetworkChange = typeof NetworkChange.Type

/** A batch of changes to the parts of the network that change often, under one sequence number (docs/capacity.md). */
export const NetworkChangeBatch = Schema.Struct({
  sequence: NetworkChangeSequence,
  changes: Schema.Array(NetworkChange).check(minItems(1, "must not be empty"), Schema.isMaxLength(MAX_NETWORK_CHANGES))
})
export type NetworkChangeBatch = typeof NetworkChangeBatch.Type

export type ChangeKind = NetworkChange["kind"]

/**
 * The state of one target on one date, as stored (capacity_network_changes) and replicated:
 * `target` is a node code, a route id or a zone code; `part` the pool of a node's capacity
 * (ALL, NORMAL, EXPRESS), a zone's window code, or "" (the whole node, route or zone); `value` the
 * units of an override (null: none), or 1/0 for a holiday or a blocked date set or lifted. A row
 * keeps the `sequence` of the batch that last set it: an older batch leaves it alone.
 */
export interface ChangeRow {
  readonly kind: ChangeKind
  readonly target: string
  readonly part: string
  readonly date: string
  readonly value: number | null
  readonly sequence: number
}

export class NetworkChangesInvalid extends Data.TaggedError("NetworkChangesInvalid")<{ readonly issues: ReadonlyArray<FieldIssue> }> {
  override get message(): string {
    return formatIssues(this.issues)
  }
}

/** The rows of a decoded batch, one per target and date (of two changes of one, the later in the batch stands). */
export interface NetworkChangeRows {
  readonly sequence: number
  readonly received: number
  readonly rows: ReadonlyArray<ChangeRow>
}

const MAX_ISSUES = 20

/** The pool a node capacity change names, or why it names none. */
const poolOf = (
  capacity: CapacityByDispatchType,
  dispatchType: DispatchType | undefined
): Result.Result<CapacityPool, string> => {
  if (typeof capacity === "number") {
    return dispatchType === undefined ? Result.succeed("ALL") : Result.fail("the node has one capacity for both dispatch types: leave dispatchType out")
  }
  return dispatchType === undefined
    ? Result.fail("the node has a capacity per dispatch type: dispatchType (NORMAL or EXPRESS) is required")
    : Result.succeed(dispatchType)
}

/**
 * Each change of a decoded batch checked against the network it applies to (`network`, the
 * current document): its node, route, zone and window must be there, and a node's pool must be
 * one the node has. Every problem names its field (`changes[2].node`), at most 20 of them.
 */
export const rowsOfBatch = (batch: NetworkChangeBatch, network: NetworkDocument): Result.Result<NetworkChangeRows, NetworkChangesInvalid> => {
  const nodes = new Map(network.nodes.map((node) => [node.code, node]))
  const routes = new Set(network.routes.map((route) => route.id))
  const zones = new Map(network.zones.map((zone) => [zone.code, new Set(zone.windows.map((window) => window.code))]))
  const issues: Array<FieldIssue> = []
  const problem = (path: string, message: string) => {
    if (issues.length < MAX_ISSUES) issues.push({ path, message })
  }
  const byKey = new Map<string, ChangeRow>()
  batch.changes.forEach((change, index) => {
    const at = `changes[${index}]`
    if ("units" in change && change.units !== null && change.units > MAX_UNITS) {
      problem(`${at}.units`, `expected at most ${MAX_UNITS} (a PostgreSQL integer), got ${change.units}`)
      return
    }
    const row = (target: string, part: string, value: number | null) => {
      const key = `${change.kind}\u0000${target}\u0000${part}\u0000${change.date}`
      byKey.delete(key)
      byKey.set(key, { kind: change.kind, target, part, date: change.date, value, sequence: batch.sequence })
    }
    const windowOf = (zone: string, window: string | undefined): string | undefined => {
      const windows = zones.get(zone)
      if (windows === undefined) {
        problem(`${at}.zone`, `unknown zone ${JSON.stringify(zone)} (not in the current network)`)
        return undefined
      }
      if (window !== undefined && !windows.has(window)) {
        problem(`${at}.window`, `zone ${zone} has no window ${JSON.stringify(window)}`)
        return undefined
      }
      return window ?? ""
    }
    switch (change.kind) {
      case "HOLIDAY":
        if (nodes.has(change.node)) row(change.node, "", change.holiday ? 1 : 0)
        else problem(`${at}.node`, `unknown node ${JSON.stringify(change.node)} (not in the current network)`)
        return
      case "BLOCKED": {
        const part = windowOf(change.zone, change.window)
        if (part !== undefined) row(change.zone, part, change.blocked ? 1 : 0)
        return
      }
      case "PICKING_CAPACITY":
      case "NODE_DISPATCH_CAPACITY": {
        const node = nodes.get(change.node)
        if (node === undefined) {
          problem(`${at}.node`, `unknown node ${JSON.stringify(change.node)} (not in the current network)`)
          return
        }
        Result.match(poolOf(change.kind === "PICKING_CAPACITY" ? node.pickingCapacity : node.dispatchCapacity, change.dispatchType), {
          onFailure: (reason) => problem(`${at}.dispatchType`, reason),
          onSuccess: (pool) => row(change.node, pool, change.units)
        })
        return
      }
      case "ROUTE_CAPACITY":
        if (routes.has(change.route)) row(change.route, "", change.units)
        else problem(`${at}.route`, `unknown route ${JSON.stringify(change.route)} (not in the current network)`)
        return
      case "ZONE_WINDOW_CAPACITY": {
        const part = windowOf(change.zone, change.window)
        if (part !== undefined) row(change.zone, part, change.units)
        return
      }
    }
  })
  if (issues.length > 0) return Result.fail(new NetworkChangesInvalid({ issues }))
  return Result.succeed({ sequence: batch.sequence, received: batch.changes.length, rows: [...byKey.values()] })
}
