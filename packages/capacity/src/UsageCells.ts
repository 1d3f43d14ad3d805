import { type Day, parseDay } from "./Calendar.ts"
import { type CapacityResource, type CapacityUse, type Ledger, resourceKey } from "./Ledger.ts"

/**
 * One resource's usage by day as its owner last published it. The map is immutable: the owner
 * (an actor of the capacity service, or nobody for a fixed ledger) replaces it whole, so a reader
 * that took it never sees it change.
 */
export interface UsageCell {
  current: ReadonlyMap<Day, number>
}

/** Where a snapshot reads each resource's usage from; the same resource always gets the same cell. */
export type UsageCells = (resource: CapacityResource) => UsageCell

const EMPTY: ReadonlyMap<Day, number> = new Map()

/** Cells keyed by `resourceKey`, created empty on first use and kept across network replacements. */
export class UsageBoard {
  private readonly cells = new Map<string, UsageCell>()

  readonly cellOf: UsageCells = (resource) => this.cellByKey(resourceKey(resource))

  cellByKey(key: string): UsageCell {
    let cell = this.cells.get(key)
    if (cell === undefined) {
      cell = { current: EMPTY }
      this.cells.set(key, cell)
    }
    return cell
  }
}

/**
 * Adds `uses` (each times `sign`) to a board's cells as the capacity actors change them: each change
 * replaces its resource's map, never edits it (tests and in-process measurements; the service's
 * actors write the stored absolute values by revision instead).
 */
export const addUses = (board: UsageBoard, uses: ReadonlyArray<CapacityUse>, sign: 1 | -1): void => {
  for (const use of uses) {
    const day = parseDay(use.date)
    if (day._tag === "None") continue
    const cell = board.cellByKey(resourceKey(use.resource))
    const next = new Map(cell.current)
    next.set(day.value, (next.get(day.value) ?? 0) + sign * use.amount)
    cell.current = next
  }
}

/** Cells holding a ledger's usage once, never written again (tests, one-off evaluations). */
export const fixedCells = (ledger: Ledger): UsageCells => {
  const board = new UsageBoard()
  const maps = new Map<string, Map<Day, number>>()
  for (const use of ledger.used.values()) {
    const key = resourceKey(use.resource)
    const days = maps.get(key) ?? new Map<Day, number>()
    maps.set(key, days)
    const day = parseDay(use.date)
    if (day._tag === "Some") days.set(day.value, (days.get(day.value) ?? 0) + use.amount)
  }
  for (const [key, days] of maps) board.cellByKey(key).current = days
  return board.cellOf
}
