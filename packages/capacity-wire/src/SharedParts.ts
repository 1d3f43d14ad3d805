import { type Day, formatDay, type RoutePath } from "@retail/capacity"
import { mapForJson } from "./JsonArrays.ts"
import { markJsonLasting } from "./JsonTextReuse.ts"

// Parts of an answer that many plans show alike, built once and marked lasting (their text is
// encoded once): a plan made again after an order changed what it read shows the same path and
// mostly the same dates, and only its trace's used capacities differ.

/** What an answer shows of a path alone: its route ids, lead times and departure days. */
export interface PathParts {
  /** Route ids joined by ">", null without a leg (a store that is its own pickup point, or no route). */
  readonly route: string | null
  readonly leadTimes: ReadonlyArray<number>
  readonly routeDaysOfWeek: ReadonlyArray<ReadonlyArray<string>>
}

/** One per path of a snapshot (its candidate paths never change), shared by every plan on it. */
const partsByPath = new WeakMap<RoutePath, PathParts>()

/** A store's own pickup, or no route: every empty path shows the same (and a dispatch without a route gets a new one). */
const NO_LEGS: PathParts = { route: null, leadTimes: [], routeDaysOfWeek: [] }

export const pathPartsOf = (path: RoutePath): PathParts => {
  if (path.length === 0) return NO_LEGS
  let parts = partsByPath.get(path)
  if (parts === undefined) {
    parts = {
      route: path.map((leg) => leg.id).join(">"),
      leadTimes: mapForJson(path, (leg) => leg.leadTime.days),
      routeDaysOfWeek: mapForJson(path, (leg) => leg.departureDayNames)
    }
    markJsonLasting(parts.leadTimes, parts.routeDaysOfWeek, ...parts.routeDaysOfWeek)
    partsByPath.set(path, parts)
  }
  return parts
}

/** Days a list may span from its first to be keyed by one bit each of a number. */
const SPAN_DAYS = 31
/** Lists kept, all dropped when there are this many: bounds memory whatever the requests ask. */
export const DATE_LISTS_KEPT = 4096

let listsKept = 0
/** By first day, then the other days as bits of their distance from it. */
let listsByFirst = new Map<Day, Map<number, ReadonlyArray<string>>>()

/**
 * The dates of the items `dayOf` gives a day for (undefined: left out), as text: one list per set
 * of days, marked lasting. Days must ascend within SPAN_DAYS of the first, else the list is made
 * for this answer alone.
 */
export const dateTextsOf = <A>(items: ReadonlyArray<A>, dayOf: (item: A) => Day | undefined): ReadonlyArray<string> => {
  let first: Day | undefined
  let previous = Number.NEGATIVE_INFINITY
  let mask = 0
  for (let i = 0; i < items.length; i++) {
    const day = dayOf(items[i] as A)
    if (day === undefined) continue
    first ??= day
    const offset = day - first
    if (day <= previous || offset >= SPAN_DAYS) return texts(items, dayOf)
    mask |= 1 << offset
    previous = day
  }
  if (first === undefined) return texts(items, dayOf)
  let byMask = listsByFirst.get(first)
  if (byMask === undefined) listsByFirst.set(first, byMask = new Map())
  let list = byMask.get(mask)
  if (list === undefined) {
    if (listsKept >= DATE_LISTS_KEPT) {
      listsByFirst = new Map([[first, byMask = new Map()]])
      listsKept = 0
    }
    list = texts(items, dayOf)
    markJsonLasting(list)
    byMask.set(mask, list)
    listsKept++
  }
  return list
}

const texts = <A>(items: ReadonlyArray<A>, dayOf: (item: A) => Day | undefined): Array<string> => {
  const out: Array<string> = []
  for (let i = 0; i < items.length; i++) {
    const day = dayOf(items[i] as A)
    if (day !== undefined) out.push(formatDay(day))
  }
  return out
}
