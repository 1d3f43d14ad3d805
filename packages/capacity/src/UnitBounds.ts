import type { FieldIssue } from "./DecodeError.ts"
import type { CapacityByDispatchType, NetworkDocument } from "./Network.ts"

/**
 * The most units a capacity or a stock row can hold: usage and stock are PostgreSQL integers
 * (capacity_usage, capacity_stock), so a larger total would be accepted and then fail every order
 * against it. Checked after decoding, beside the cross references: the schema's words are the ones
 * Effect 3 wrote for a rejected document, which a new check in it would change.
 */
export const MAX_UNITS = 2_147_483_647

const tooLarge = (path: string, units: number): ReadonlyArray<FieldIssue> =>
  units > MAX_UNITS ? [{ path, message: `expected at most ${MAX_UNITS} (a PostgreSQL integer), got ${units}` }] : []

const poolIssues = (path: string, capacity: CapacityByDispatchType): ReadonlyArray<FieldIssue> =>
  typeof capacity === "number"
    ? tooLarge(path, capacity)
    : [...tooLarge(`${path}.NORMAL`, capacity.NORMAL), ...tooLarge(`${path}.EXPRESS`, capacity.EXPRESS)]

/** Every capacity and stock row of the document past MAX_UNITS, by path. */
export const unitsPastIntegerIssues = (document: NetworkDocument): ReadonlyArray<FieldIssue> => [
  ...document.nodes.flatMap((node, i) => [
    ...poolIssues(`nodes[${i}].pickingCapacity`, node.pickingCapacity),
    ...poolIssues(`nodes[${i}].dispatchCapacity`, node.dispatchCapacity)
  ]),
  ...document.routes.flatMap((route, i) => tooLarge(`routes[${i}].capacityPerDeparture`, route.capacityPerDeparture)),
  ...document.zones.flatMap((zone, i) => zone.windows.flatMap((window, k) => tooLarge(`zones[${i}].windows[${k}].capacity`, window.capacity))),
  ...document.stock.flatMap((entry, i) => tooLarge(`stock[${i}].units`, entry.units))
]
