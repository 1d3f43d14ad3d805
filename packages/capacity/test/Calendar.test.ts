import { Option } from "effect"
import { describe, expect, it } from "vitest"
import {
  addLeadTime,
  addWorkingDays,
  dayOfWeekName,
  formatDay,
  isWorkingDay,
  localClockAt,
  maskOf,
  parseClock,
  parseDay,
  ZoneClock,
  zoneFormatter
} from "../src/index.ts"
import { day } from "./fixtures.ts"

describe("local dates", () => {
  it("accepts only real dates", () => {
    expect(Option.isSome(parseDay("2024-02-29"))).toBe(true)
    expect(Option.isSome(parseDay("2000-02-29"))).toBe(true)
    expect(Option.isNone(parseDay("2025-02-29"))).toBe(true)
    expect(Option.isNone(parseDay("2100-02-29"))).toBe(true)
    expect(Option.isNone(parseDay("2025-04-31"))).toBe(true)
    expect(Option.isNone(parseDay("2025-13-01"))).toBe(true)
    expect(Option.isNone(parseDay("2025-1-01"))).toBe(true)
    expect(Option.isNone(parseDay("2025-01-01T00:00:00Z"))).toBe(true)
  })

  it("crosses month and year ends", () => {
    expect(formatDay(day("2025-01-31") + 1)).toBe("2025-02-01")
    expect(formatDay(day("2025-02-28") + 1)).toBe("2025-03-01")
    expect(formatDay(day("2024-02-28") + 1)).toBe("2024-02-29")
    expect(formatDay(day("2025-12-31") + 1)).toBe("2026-01-01")
    expect(formatDay(day("1999-12-31") + 1)).toBe("2000-01-01")
    expect(day("2026-01-01") - day("2025-01-01")).toBe(365)
  })

  it("names days of week", () => {
    expect(dayOfWeekName(day("2025-01-01"))).toBe("WED")
    expect(dayOfWeekName(day("2025-03-10"))).toBe("MON")
    expect(dayOfWeekName(day("2025-03-16"))).toBe("SUN")
    expect(dayOfWeekName(day("1970-01-01"))).toBe("THU")
    expect(dayOfWeekName(day("1969-12-31"))).toBe("WED")
  })

  it("parses HH:MM clock times", () => {
    expect(parseClock("14:00")).toEqual(Option.some(840))
    expect(parseClock("00:00")).toEqual(Option.some(0))
    expect(Option.isNone(parseClock("24:00"))).toBe(true)
    expect(Option.isNone(parseClock("9:00"))).toBe(true)
  })
})

describe("working days and lead times", () => {
  const calendar = { days: maskOf(["MON", "TUE", "WED", "THU", "FRI"]), holidays: new Set([day("2025-07-28")]) }

  it("skips weekends and holidays", () => {
    expect(isWorkingDay(calendar, day("2025-07-28"))).toBe(false)
    expect(isWorkingDay(calendar, day("2025-07-26"))).toBe(false)
    expect(isWorkingDay(calendar, day("2025-07-29"))).toBe(true)
    expect(formatDay(addWorkingDays(calendar, day("2025-07-25"), 1) ?? 0)).toBe("2025-07-29")
    expect(formatDay(addWorkingDays(calendar, day("2025-07-25"), 0) ?? 0)).toBe("2025-07-25")
  })

  it("counts business days Monday to Friday minus holidays", () => {
    const none = new Set<number>()
    expect(formatDay(addLeadTime(day("2025-03-14"), 1, "BUSINESS_DAYS", none) ?? 0)).toBe("2025-03-17")
    expect(formatDay(addLeadTime(day("2025-02-28"), 1, "BUSINESS_DAYS", none) ?? 0)).toBe("2025-03-03")
    expect(formatDay(addLeadTime(day("2025-03-13"), 3, "BUSINESS_DAYS", none) ?? 0)).toBe("2025-03-18")
    const newYear = new Set([day("2026-01-01")])
    expect(formatDay(addLeadTime(day("2025-12-31"), 1, "BUSINESS_DAYS", newYear) ?? 0)).toBe("2026-01-02")
    expect(formatDay(addLeadTime(day("2025-12-31"), 2, "BUSINESS_DAYS", newYear) ?? 0)).toBe("2026-01-05")
  })

  it("counts calendar days straight through weekends and holidays", () => {
    const newYear = new Set([day("2026-01-01")])
    expect(formatDay(addLeadTime(day("2025-03-14"), 1, "CALENDAR_DAYS", newYear) ?? 0)).toBe("2025-03-15")
    expect(formatDay(addLeadTime(day("2025-12-30"), 3, "CALENDAR_DAYS", newYear) ?? 0)).toBe("2026-01-02")
    expect(formatDay(addLeadTime(day("2025-03-14"), 0, "BUSINESS_DAYS", newYear) ?? 0)).toBe("2025-03-14")
  })
})

describe("now in a node's time zone", () => {
  it("reads the local date and minute of an instant, not the server's", () => {
    const instant = Date.parse("2025-03-10T03:30:00Z")
    const lima = localClockAt(zoneFormatter("America/Lima"), instant)
    expect(formatDay(lima.today)).toBe("2025-03-09")
    expect(lima.minute).toBe(22 * 60 + 30)
    const tokyo = localClockAt(zoneFormatter("Asia/Tokyo"), instant)
    expect(formatDay(tokyo.today)).toBe("2025-03-10")
    expect(tokyo.minute).toBe(12 * 60 + 30)
  })

  it("follows daylight saving where the zone has it", () => {
    const newYork = zoneFormatter("America/New_York")
    expect(localClockAt(newYork, Date.parse("2025-03-08T17:00:00Z")).minute).toBe(12 * 60)
    expect(localClockAt(newYork, Date.parse("2025-03-10T17:00:00Z")).minute).toBe(13 * 60)
  })
})

describe("a zone's clock kept per minute", () => {
  /** Every `stepMs` from `fromIso` for `count` steps, forwards then backwards (the kept minute changes both ways). */
  const sweep = (fromIso: string, stepMs: number, count: number): ReadonlyArray<number> => {
    const start = Date.parse(fromIso)
    const forwards = Array.from({ length: count }, (_, i) => start + i * stepMs)
    return [...forwards, ...[...forwards].reverse()]
  }

  const agrees = (timeZone: string, instants: ReadonlyArray<number>) => {
    const formatter = zoneFormatter(timeZone)
    const clock = new ZoneClock(formatter)
    for (const instant of instants) {
      expect({ instant: new Date(instant).toISOString(), ...clock.at(instant) })
        .toEqual({ instant: new Date(instant).toISOString(), ...localClockAt(formatter, instant) })
    }
  }

  it("reads what localClockAt reads at every instant of a day, minute and midnight boundaries included", () => {
    agrees("America/Lima", sweep("2025-03-09T04:58:00Z", 7_001, 200))
    agrees("Asia/Kolkata", sweep("2025-03-09T18:28:00Z", 7_001, 200))
  })

  it("follows daylight saving transitions as they happen", () => {
    agrees("America/New_York", sweep("2025-03-09T06:58:00Z", 9_999, 100))
    agrees("America/New_York", sweep("2025-11-02T05:58:00Z", 9_999, 100))
  })

  it("stays exact where a zone's offset had seconds (Monrovia, -0:44:30 until 1972)", () => {
    agrees("Africa/Monrovia", sweep("1971-06-01T11:59:00Z", 1_000, 240))
  })
})
