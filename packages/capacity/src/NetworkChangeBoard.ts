import { type Day, parseDay } from "./Calendar.ts"
import type { ChangeKind, ChangeRow } from "./NetworkChanges.ts"

/**
 * The changes of one target (a node's holidays, a pool's, route's or window's capacity, a zone's or
 * a window's blocked dates) by day: the units of an override, or 1/0 for a date set or lifted. Like
 * a usage cell, the map is replaced whole when a change arrives, never edited: a plan that read it
 * is stale exactly when the cell holds another map (PlanCache.ts).
 */
export interface ChangeCell {
  current: ReadonlyMap<Day, number>
}

/** Where a snapshot reads the changes of each target; the same target always gets the same cell. */
export type ChangeCells = (kind: ChangeKind, target: string, part: string) => ChangeCell

const EMPTY: ReadonlyMap<Day, number> = new Map()

const cellKey = (kind: ChangeKind, target: string, part: string): string => `${kind}|${target}|${part}`

/** No changes: a snapshot of the document alone (tests, one-off evaluations). */
export const noChanges: ChangeCells = () => ({ current: EMPTY })

/**
 * The network changes a process holds, kept across network replacements (a change stands over
 * whatever document is current). A row is taken when its sequence is above the one held for its
 * target and date, so the same row twice (own write, then its event; a reload) changes nothing,
 * and an older one never wins.
 */
export class NetworkChangeBoard {
  private readonly cells = new Map<string, ChangeCell>()
  private readonly held = new Map<string, Map<Day, ChangeRow>>()

  readonly cellOf: ChangeCells = (kind, target, part) => this.cellByKey(cellKey(kind, target, part))

  private cellByKey(key: string): ChangeCell {
    let cell = this.cells.get(key)
    if (cell === undefined) {
      cell = { current: EMPTY }
      this.cells.set(key, cell)
    }
    return cell
  }

  /** Takes the rows newer than those held; each target's cell gets one new map per call. Answers the rows taken. */
  apply(rows: ReadonlyArray<ChangeRow>): ReadonlyArray<ChangeRow> {
    const taken: Array<ChangeRow> = []
    const touched = new Set<string>()
    for (const row of rows) {
      const day = parseDay(row.date)
      if (day._tag === "None") continue
      const key = cellKey(row.kind, row.target, row.part)
      let days = this.held.get(key)
      if (days === undefined) {
        days = new Map()
        this.held.set(key, days)
      }
      const before = days.get(day.value)
      if (before !== undefined && before.sequence >= row.sequence) continue
      days.set(day.value, row)
      touched.add(key)
      taken.push(row)
    }
    for (const key of touched) {
      const next = new Map<Day, number>()
      for (const [day, row] of this.held.get(key) ?? []) if (row.value !== null) next.set(day, row.value)
      this.cellByKey(key).current = next
    }
    return taken
  }

  /** Every row held, in no particular order (GET /v1/network/changes, tests). */
  rows(): ReadonlyArray<ChangeRow> {
    const all: Array<ChangeRow> = []
    for (const days of this.held.values()) for (const row of days.values()) all.push(row)
    return all
  }
}
