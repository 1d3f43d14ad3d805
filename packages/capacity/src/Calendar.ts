import { Option } from "effect"

/**
 * A local calendar date (no time zone) as the number of days since 1970-01-01.
 * Integers make day arithmetic, comparison and map keys allocation-free on the hot path.
 */
export type Day = number

export const DAY_NAMES = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"] as const
export type DayOfWeek = (typeof DAY_NAMES)[number]

/** 0 = Sunday ... 6 = Saturday; 1970-01-01 was a Thursday. */
export const dayOfWeekIndex = (day: Day): number => (((day + 4) % 7) + 7) % 7

export const dayOfWeekName = (day: Day): DayOfWeek => DAY_NAMES[dayOfWeekIndex(day)] ?? "SUN"

// Howard Hinnant's days_from_civil / civil_from_days: exact for the proleptic Gregorian calendar.
export const dayFromCivil = (year: number, month: number, dayOfMonth: number): Day => {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const mp = (month + 9) % 12
  const doy = Math.floor((153 * mp + 2) / 5) + dayOfMonth - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
}

export const civilFromDay = (day: Day): { readonly year: number; readonly month: number; readonly day: number } => {
  const z = day + 719468
  const era = Math.floor(z / 146097)
  const doe = z - era * 146097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1
  const m = mp < 10 ? mp + 3 : mp - 9
  return { year: yoe + era * 400 + (m <= 2 ? 1 : 0), month: m, day: d }
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : `${n}`)

export const formatDay = (day: Day): string => {
  const c = civilFromDay(day)
  return `${c.year}-${pad2(c.month)}-${pad2(c.day)}`
}

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/

/** A real `YYYY-MM-DD` date: 2025-02-29 and 2025-13-01 are rejected. */
export const parseDay = (text: string): Option.Option<Day> => {
  const match = DATE_PATTERN.exec(text)
  if (match === null) return Option.none()
  const year = Number(match[1])
  const month = Number(match[2])
  const dayOfMonth = Number(match[3])
  if (month < 1 || month > 12 || dayOfMonth < 1) return Option.none()
  const day = dayFromCivil(year, month, dayOfMonth)
  const back = civilFromDay(day)
  return back.month === month && back.day === dayOfMonth ? Option.some(day) : Option.none()
}

export const isRealDate = (text: string): boolean => Option.isSome(parseDay(text))

/** Bit i set = day of week i (0 = Sunday) is included. */
export type DayMask = number

export const ALL_DAYS: DayMask = 0b1111111
export const MONDAY_TO_FRIDAY: DayMask = 0b0111110

export const maskOf = (days: ReadonlyArray<DayOfWeek>): DayMask => {
  let mask = 0
  for (const name of days) mask |= 1 << DAY_NAMES.indexOf(name)
  return mask
}

export const namesOfMask = (mask: DayMask): ReadonlyArray<DayOfWeek> => {
  const names: Array<DayOfWeek> = []
  // Monday first: the order people read a week in.
  for (const index of [1, 2, 3, 4, 5, 6, 0]) {
    const name = DAY_NAMES[index]
    if (name !== undefined && (mask & (1 << index)) !== 0) names.push(name)
  }
  return names
}

export const inMask = (mask: DayMask, day: Day): boolean => (mask & (1 << dayOfWeekIndex(day))) !== 0

/** Days a node works on: a weekly pattern minus holiday dates. */
export interface WorkCalendar {
  readonly days: DayMask
  readonly holidays: ReadonlySet<Day>
}

export const isWorkingDay = (calendar: WorkCalendar, day: Day): boolean =>
  inMask(calendar.days, day) && !calendar.holidays.has(day)

/** First working day on or after `day`; undefined when the calendar has no working day in a year. */
export const firstWorkingDayFrom = (calendar: WorkCalendar, day: Day): Day | undefined => {
  for (let d = day; d < day + 366; d++) if (isWorkingDay(calendar, d)) return d
  return undefined
}

/** The `count`-th working day after `day` (count 0 = `day` itself). */
export const addWorkingDays = (calendar: WorkCalendar, day: Day, count: number): Day | undefined => {
  let d = day
  let left = count
  const limit = day + 366 + count * 7
  while (left > 0) {
    d++
    if (d > limit) return undefined
    if (isWorkingDay(calendar, d)) left--
  }
  return d
}

export type LeadTimeUnit = "BUSINESS_DAYS" | "CALENDAR_DAYS"

/**
 * Arrival of a departure on `departure` after a lead time. Business days are Monday to Friday
 * minus the given holidays; a lead time of 0 arrives the same day in either unit.
 */
export const addLeadTime = (
  departure: Day,
  days: number,
  unit: LeadTimeUnit,
  holidays: ReadonlySet<Day>
): Day | undefined =>
  unit === "CALENDAR_DAYS"
    ? departure + days
    : addWorkingDays({ days: MONDAY_TO_FRIDAY, holidays }, departure, days)

const CLOCK_PATTERN = /^([01]\d|2[0-3]):([0-5]\d)$/

/** `HH:MM` (24 h) to minutes after midnight. */
export const parseClock = (text: string): Option.Option<number> => {
  const match = CLOCK_PATTERN.exec(text)
  return match === null ? Option.none() : Option.some(Number(match[1]) * 60 + Number(match[2]))
}

/** The local date and minute of the day at one instant in one time zone. */
export interface LocalClock {
  readonly today: Day
  readonly minute: number
}

export type ZoneFormatter = Intl.DateTimeFormat

export const zoneFormatter = (timeZone: string): ZoneFormatter =>
  new Intl.DateTimeFormat("en-US", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23"
  })

export const isValidTimeZone = (timeZone: string): boolean => {
  try {
    zoneFormatter(timeZone)
    return true
  } catch {
    return false
  }
}

/** "Now" in a time zone, for an instant given by the caller (the engine never reads the clock). */
export const localClockAt = (formatter: ZoneFormatter, epochMillis: number): LocalClock => {
  let year = 1970
  let month = 1
  let dayOfMonth = 1
  let hour = 0
  let minute = 0
  for (const part of formatter.formatToParts(epochMillis)) {
    switch (part.type) {
      case "year":
        year = Number(part.value)
        break
      case "month":
        month = Number(part.value)
        break
      case "day":
        dayOfMonth = Number(part.value)
        break
      case "hour":
        hour = Number(part.value)
        break
      case "minute":
        minute = Number(part.value)
        break
    }
  }
  return { today: dayFromCivil(year, month, dayOfMonth), minute: hour * 60 + minute }
}

const MINUTE_MS = 60_000

/**
 * A time zone's `localClockAt`, formatted at most about once per UTC minute instead of once per
 * evaluation (Intl formatting is the costliest step of a small request). The answer for a UTC
 * minute is kept only when the first and last millisecond of that minute read the same local date
 * and minute: local time cannot go forward and come back within one minute, so every instant
 * between them reads the same. A minute with a transition inside it (none in tzdb since 1972, whose
 * offsets and transitions are whole minutes) is formatted per call, as before.
 */
export class ZoneClock {
  private cachedMinute = Number.NaN
  private cached: LocalClock = { today: 0, minute: 0 }

  constructor(readonly formatter: ZoneFormatter) {}

  at(epochMillis: number): LocalClock {
    const utcMinute = Math.floor(epochMillis / MINUTE_MS)
    if (utcMinute === this.cachedMinute) return this.cached
    const first = localClockAt(this.formatter, utcMinute * MINUTE_MS)
    const last = localClockAt(this.formatter, utcMinute * MINUTE_MS + MINUTE_MS - 1)
    if (first.today !== last.today || first.minute !== last.minute) return localClockAt(this.formatter, epochMillis)
    this.cachedMinute = utcMinute
    this.cached = first
    return first
  }
}
