import { describe, expect, it } from "@effect/vitest"
import { buildSnapshot, type Day, demoNetwork, formatDay, ledgerFromUses, parseDay, pathsTo } from "@retail/capacity"
import { Option } from "effect"
import fc from "fast-check"
import { isJsonLasting } from "../src/JsonTextReuse.ts"
import { DATE_LISTS_KEPT, dateTextsOf, pathPartsOf } from "../src/SharedParts.ts"
import { decoded } from "../../capacity/test/fixtures.ts"

const day = (text: string): Day => Option.getOrThrow(parseDay(text))
const MONDAY = day("2027-03-01")
const plain = (days: ReadonlyArray<Day | undefined>) => days.flatMap((d) => (d === undefined ? [] : [formatDay(d)]))

describe("dateTextsOf", () => {
  it("is the formatted days it is given, in order, whatever they are", () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.integer({ min: MONDAY - 40, max: MONDAY + 40 }), { nil: undefined }), { maxLength: 12 }), (days) => {
        expect(dateTextsOf(days, (d) => d)).toEqual(plain(days))
      })
    )
  })

  it("is one lasting list for the same days, another for other days; a list it cannot key is made anew", () => {
    const week = [MONDAY, MONDAY + 1, MONDAY + 2, MONDAY + 4]
    const first = dateTextsOf(week, (d) => d)
    expect(dateTextsOf([...week], (d) => d)).toBe(first)
    expect(isJsonLasting(first)).toBe(true)
    // Days left out by the callback key the list as the days kept.
    expect(dateTextsOf([MONDAY, undefined, MONDAY + 1, MONDAY + 2, MONDAY + 4], (d) => d)).toBe(first)
    expect(dateTextsOf([MONDAY, MONDAY + 1, MONDAY + 3, MONDAY + 4], (d) => d)).not.toBe(first)
    expect(dateTextsOf([MONDAY + 1, MONDAY + 2, MONDAY + 4], (d) => d)).not.toBe(first)
    // Not ascending, or wider than a month: the right text, in a list of its own.
    const unordered = [MONDAY + 2, MONDAY]
    expect(dateTextsOf(unordered, (d) => d)).toEqual(plain(unordered))
    expect(dateTextsOf(unordered, (d) => d)).not.toBe(dateTextsOf(unordered, (d) => d))
    const wide = [MONDAY, MONDAY + 31]
    expect(dateTextsOf(wide, (d) => d)).toEqual(plain(wide))
    expect(isJsonLasting(dateTextsOf(wide, (d) => d))).toBe(false)
  })

  it(`keeps at most ${DATE_LISTS_KEPT} lists, then starts again`, () => {
    const kept = dateTextsOf([MONDAY + 100], (d) => d)
    expect(dateTextsOf([MONDAY + 100], (d) => d)).toBe(kept)
    // DATE_LISTS_KEPT lists of other days: 16 first days, each with every set of the 8 days after it.
    for (let i = 0; i < DATE_LISTS_KEPT; i++) {
      const first = MONDAY + 200 + 10 * (i >> 8)
      const days = [first]
      for (let b = 0; b < 8; b++) if (((i >> b) & 1) === 1) days.push(first + 1 + b)
      dateTextsOf(days, (d) => d)
    }
    const again = dateTextsOf([MONDAY + 100], (d) => d)
    expect(again).not.toBe(kept)
    expect(again).toEqual(kept)
  })
})

describe("pathPartsOf", () => {
  it("is one lasting set of parts per path, what the path's legs show; an empty path shows no route", () => {
    const snapshot = buildSnapshot(decoded(demoNetwork), ledgerFromUses([]))
    const [twoLegs] = [...pathsTo(snapshot.paths, "NORMAL", "HOME_DELIVERY", "LIMA-SUR").values()].flat().filter((path) => path.length === 2)
    if (twoLegs === undefined) throw new Error("the demo network has no two-leg path to LIMA-SUR")
    const parts = pathPartsOf(twoLegs)
    expect(pathPartsOf(twoLegs)).toBe(parts)
    expect(parts).toEqual({
      route: twoLegs.map((leg) => leg.id).join(">"),
      leadTimes: twoLegs.map((leg) => leg.leadTime.days),
      routeDaysOfWeek: twoLegs.map((leg) => leg.departureDayNames)
    })
    expect(isJsonLasting(parts.leadTimes) && isJsonLasting(parts.routeDaysOfWeek)).toBe(true)
    expect(pathPartsOf([])).toEqual({ route: null, leadTimes: [], routeDaysOfWeek: [] })
    expect(pathPartsOf([])).toBe(pathPartsOf([]))
  })
})
