import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import { type ChangeRow, NetworkChangeBoard, parseDay } from "../src/index.ts"

const day = (text: string) => Option.getOrThrow(parseDay(text))
const route = (date: string, value: number | null, sequence: number): ChangeRow =>
  ({ kind: "ROUTE_CAPACITY", target: "R-1", part: "", date, value, sequence })

describe("NetworkChangeBoard", () => {
  it("takes a row only above the sequence held for its target and date; a replay or an older row changes nothing", () => {
    const board = new NetworkChangeBoard()
    const cell = board.cellOf("ROUTE_CAPACITY", "R-1", "")
    expect(board.apply([route("2027-03-01", 5, 10)])).toHaveLength(1)
    const after = cell.current
    expect([...after]).toEqual([[day("2027-03-01"), 5]])
    expect(board.apply([route("2027-03-01", 5, 10), route("2027-03-01", 9, 9)])).toEqual([])
    // Nothing taken: the same map (plans that read it stay valid).
    expect(cell.current).toBe(after)
    // A late row of another date is that date's newest.
    expect(board.apply([route("2027-03-02", 0, 9)])).toHaveLength(1)
    expect([...cell.current].sort()).toEqual([[day("2027-03-01"), 5], [day("2027-03-02"), 0]])
  })

  it("replaces only the cells of the targets a batch touches; an override taken back (null) leaves the map but keeps its sequence", () => {
    const board = new NetworkChangeBoard()
    const other = board.cellOf("HOLIDAY", "CD-1", "")
    const untouched = other.current
    board.apply([route("2027-03-01", 5, 1)])
    expect(other.current).toBe(untouched)
    board.apply([route("2027-03-01", null, 2)])
    expect(board.cellOf("ROUTE_CAPACITY", "R-1", "").current.size).toBe(0)
    expect(board.apply([route("2027-03-01", 7, 1)])).toEqual([])
    expect(board.rows()).toEqual([route("2027-03-01", null, 2)])
  })
})
