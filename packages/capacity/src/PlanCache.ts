import type { Day } from "./Calendar.ts"
import type { EngineOptions } from "./EngineTypes.ts"
import type { DispatchType } from "./Network.ts"
import type { PathPlan } from "./EngineTypes.ts"
import { clockOf, type DispatchToPlan, type PlanContext, planPath, type UsageRead } from "./Planner.ts"
import type { NodeModel, RoutePath, Snapshot, ZoneModel } from "./SnapshotModel.ts"

/** A change map or a calendar: compared by identity (their owners replace them whole). */
type Read = object

/** A usage map: replaced whole by its owner, and compared by the values a plan read from it. */
type Usage = ReadonlyMap<Day, number>

/** What a plan may read that can change without a new snapshot, in a fixed order (`readsOf`). */
interface Reads {
  readonly fixed: ReadonlyArray<Read>
  readonly usage: ReadonlyArray<Usage>
}

/**
 * One dispatch asked on one path: everything `planPath` reads besides the snapshot's fixed model
 * and the usage and change maps (the dispatch, the request's delivery range, the options, and of each clock it
 * consults only the local day and whether the cut-off it is compared with has passed), compared as
 * numbers and identities: a miss builds no string.
 */
interface Asked {
  readonly origin: NodeModel
  readonly dispatchType: DispatchType
  readonly zone: ZoneModel | undefined
  readonly pickupNode: NodeModel | undefined
  readonly units: number
  readonly purchaseDate: Day
  readonly deliveryFrom: Day | undefined
  readonly deliveryUntil: Day | undefined
  readonly options: EngineOptions
  /** Per clock consulted (the origin's, then each leg's source): its day, then 1 when past the cut-off. */
  readonly clocks: ReadonlyArray<number>
}

interface Kept extends Asked {
  /** Every usage map, change map and calendar the plan could have read, as it was: owners replace them whole, never edit them. */
  read: Reads
  /**
   * The usage values the plan read, flat: the map's position in `read.usage`, the day, the value.
   * Undefined when a map it read is not among them: then any replaced map replans it.
   */
  seen: ReadonlyArray<number> | undefined
  /** Undefined while the key was asked once only: a plan is kept from the second time. */
  plan: PathPlan | undefined
  /** Served more than one dispatch, or replaces a plan that had (then in `reused`). */
  reused: boolean
}

/**
 * Plans (and keys asked once) kept per snapshot: when there are this many, all are dropped. Bounds
 * memory whatever the traffic (a plan with its answer parts and their text is a few KB).
 */
export const PLANS_PER_SNAPSHOT = 2048
/** Kept per path, the oldest dropped first: lookups scan them. */
export const PLANS_PER_PATH = 32

interface SnapshotPlans {
  byPath: WeakMap<RoutePath, Array<Kept>>
  count: number
}

/** By snapshot (a network replacement builds a new one, and its plans go with the old). */
const plansBySnapshot = new WeakMap<Snapshot, SnapshotPlans>()

const reused = new WeakSet<PathPlan>()

/**
 * Whether a plan has served more than one dispatch, or replaced one that had (its dispatch is asked
 * again and again, and an order changed what it read): what is built from it is worth keeping with
 * it from then on (a plan used once, as under traffic that never repeats, costs nothing more).
 */
export const isReusedPlan = (plan: PathPlan): boolean => reused.has(plan)

const clocksOf = (context: PlanContext, dispatch: DispatchToPlan, path: RoutePath): Array<number> => {
  const originClock = clockOf(context, dispatch.origin)
  const clocks = [originClock.today, originClock.minute >= dispatch.origin.cutoffMinute ? 1 : 0]
  for (const route of path) {
    const clock = clockOf(context, route.source)
    clocks.push(clock.today, clock.minute >= route.cutoffMinute ? 1 : 0)
  }
  return clocks
}

/** Whether `kept` equals `clocksOf(context, dispatch, path)`, without making the list: asked of every kept key a lookup scans. */
const sameClocks = (kept: ReadonlyArray<number>, context: PlanContext, dispatch: DispatchToPlan, path: RoutePath): boolean => {
  if (kept.length !== 2 + 2 * path.length) return false
  const originClock = clockOf(context, dispatch.origin)
  if (kept[0] !== originClock.today || kept[1] !== (originClock.minute >= dispatch.origin.cutoffMinute ? 1 : 0)) return false
  for (let i = 0; i < path.length; i++) {
    const route = path[i]!
    const clock = clockOf(context, route.source)
    if (kept[2 + 2 * i] !== clock.today || kept[3 + 2 * i] !== (clock.minute >= route.cutoffMinute ? 1 : 0)) return false
  }
  return true
}

const isAsked = (kept: Kept, context: PlanContext, dispatch: DispatchToPlan, path: RoutePath): boolean =>
  kept.units === dispatch.units && kept.purchaseDate === dispatch.purchaseDate && kept.origin === dispatch.origin &&
  kept.dispatchType === dispatch.dispatchType && kept.zone === dispatch.zone && kept.pickupNode === dispatch.pickupNode &&
  kept.deliveryFrom === context.deliveryFrom && kept.deliveryUntil === context.deliveryUntil &&
  kept.options.horizonDays === context.options.horizonDays &&
  kept.options.deliveryDatesCount === context.options.deliveryDatesCount && sameClocks(kept.clocks, context, dispatch, path)

/**
 * What `planPath` may read for this dispatch and path that can change without a new snapshot, in a
 * fixed order: usage maps, the capacity overrides and blocked windows of network changes, and the
 * calendars (holidays) and blocked dates they merge into. A change replaces only its target's, so
 * it replans only the plans that read that target.
 */
const readsOf = (dispatch: DispatchToPlan, path: RoutePath): Reads => {
  const picking = dispatch.origin.picking[dispatch.dispatchType]
  const fixed: Array<Read> = [picking.totals, dispatch.origin.calendar]
  const usage: Array<Usage> = [picking.used]
  for (const route of path) {
    const pool = route.source.dispatch[dispatch.dispatchType]
    fixed.push(route.totals, pool.totals, route.source.calendar)
    usage.push(route.used, pool.used)
    if (route.targetNode !== undefined) fixed.push(route.targetNode.calendar)
  }
  if (dispatch.zone !== undefined) {
    fixed.push(dispatch.zone.blocked)
    for (const window of dispatch.zone.windows) {
      fixed.push(window.totals, window.blocked)
      usage.push(window.used)
    }
  } else if (dispatch.pickupNode !== undefined) fixed.push(dispatch.pickupNode.calendar)
  return { fixed, usage }
}

/**
 * How `readsOf(dispatch, path)` compares with what a plan read, without making it: "same" (every
 * map and calendar the same object), "usage" (only usage maps replaced: their values decide), or
 * "changed". Walks readsOf's order; a hit, most lookups, allocates nothing.
 */
const compareReads = (kept: Reads, dispatch: DispatchToPlan, path: RoutePath): "same" | "usage" | "changed" => {
  const fixed = kept.fixed
  const usage = kept.usage
  let f = 0
  let u = 0
  let replaced = false
  const picking = dispatch.origin.picking[dispatch.dispatchType]
  if (fixed[f++] !== picking.totals || fixed[f++] !== dispatch.origin.calendar) return "changed"
  if (usage[u++] !== picking.used) replaced = true
  for (const route of path) {
    const pool = route.source.dispatch[dispatch.dispatchType]
    if (fixed[f++] !== route.totals || fixed[f++] !== pool.totals || fixed[f++] !== route.source.calendar) return "changed"
    if (usage[u++] !== route.used) replaced = true
    if (usage[u++] !== pool.used) replaced = true
    if (route.targetNode !== undefined && fixed[f++] !== route.targetNode.calendar) return "changed"
  }
  if (dispatch.zone !== undefined) {
    if (fixed[f++] !== dispatch.zone.blocked) return "changed"
    for (const window of dispatch.zone.windows) {
      if (fixed[f++] !== window.totals || fixed[f++] !== window.blocked) return "changed"
      if (usage[u++] !== window.used) replaced = true
    }
  } else if (dispatch.pickupNode !== undefined && fixed[f++] !== dispatch.pickupNode.calendar) return "changed"
  if (f !== fixed.length || u !== usage.length) return "changed"
  return replaced ? "usage" : "same"
}

const sameObjects = (kept: ReadonlyArray<Read>, now: ReadonlyArray<Read>): boolean => {
  if (kept.length !== now.length) return false
  for (let i = 0; i < kept.length; i++) if (kept[i] !== now[i]) return false
  return true
}

/**
 * Whether the kept plan is what planning now would give: the change maps and calendars are the
 * same objects, and every usage value it read is the same (a replaced map is read again on those
 * days only). An order on days a plan never read (another purchase date's picking day, other
 * delivery dates) leaves it, its answer parts and their text as they were.
 */
const stillHolds = (kept: Kept, now: Reads): boolean => {
  if (!sameObjects(kept.read.fixed, now.fixed)) return false
  if (sameObjects(kept.read.usage, now.usage)) return true
  const seen = kept.seen
  if (seen === undefined || kept.read.usage.length !== now.usage.length) return false
  for (let i = 0; i < seen.length; i += 3) {
    const at = seen[i]!
    const map = now.usage[at]!
    if (map !== kept.read.usage[at] && (map.get(seen[i + 1]!) ?? 0) !== seen[i + 2]) return false
  }
  kept.read = now
  return true
}

/**
 * The usage values a plan read (map, day, value) with each map as its position in `usage`;
 * undefined when one is not there. Cells never written share one empty map, so a map at several
 * positions is checked at all of them: one of them is the one read.
 */
const seenOf = (reads: ReadonlyArray<UsageRead>, usage: ReadonlyArray<Usage>): ReadonlyArray<number> | undefined => {
  const seen: Array<number> = []
  for (let i = 0; i < reads.length; i += 3) {
    let found = false
    for (let at = 0; at < usage.length; at++) {
      if (usage[at] !== reads[i]) continue
      seen.push(at, reads[i + 1] as number, reads[i + 2] as number)
      found = true
    }
    if (!found) return undefined
  }
  return seen
}

/** `planPath`, with the usage values it read. */
const planReading = (context: PlanContext, dispatch: DispatchToPlan, path: RoutePath, read: Reads) => {
  const reads: Array<UsageRead> = []
  context.usageReads = reads
  try {
    const plan = planPath(context, dispatch, path)
    return { plan, seen: seenOf(reads, read.usage) }
  } finally {
    context.usageReads = undefined
  }
}

/** Plans asked of the cache, and those it answered (read by the metrics at scrape: this code knows nothing of them). */
export const planCacheCounts = { asked: 0, hits: 0 }

/**
 * `planPath`, reusing the plan of an earlier equal dispatch on the same path while what it read is
 * unchanged: no change map or calendar it may have read was replaced (a network change replaces
 * those of its targets), and every usage value it read is the same (a consumption, a release or a
 * reload replaces the usage maps it touches; only the days the plan read are compared). The same
 * inputs give the same plan, so answers stay exactly what a fresh evaluation gives. A plan is kept
 * from the second time its dispatch is asked.
 */
export const cachedPlanPath = (context: PlanContext, dispatch: DispatchToPlan, path: RoutePath): PathPlan => {
  planCacheCounts.asked++
  let plans = plansBySnapshot.get(context.snapshot)
  const onPath = plans?.byPath.get(path)
  let kept: Kept | undefined
  if (onPath !== undefined) {
    for (const candidate of onPath) {
      if (isAsked(candidate, context, dispatch, path)) {
        kept = candidate
        break
      }
    }
  }
  // What it reads now is listed only when a map it read was replaced, or to plan.
  const compared = kept?.plan === undefined ? "changed" : compareReads(kept.read, dispatch, path)
  const read = compared === "same" && kept !== undefined ? kept.read : readsOf(dispatch, path)
  if (kept?.plan !== undefined && (compared === "same" || (compared === "usage" && stillHolds(kept, read)))) {
    planCacheCounts.hits++
    if (!kept.reused) {
      kept.reused = true
      reused.add(kept.plan)
    }
    return kept.plan
  }
  // Asked once, a key keeps no plan, so what it read is not worth recording.
  const { plan, seen } = kept !== undefined ? planReading(context, dispatch, path, read) : { plan: planPath(context, dispatch, path), seen: undefined }
  if (kept !== undefined) {
    // Asked before: keep the plan from now on (or the newer one, when usage changed). A key whose
    // last plan served several dispatches will serve this one as often: it counts as reused from
    // its first answer, so that what is built from it (parts, text) is built once, not again on
    // the next ask. Under orders, that is most replans.
    const hot = kept.plan !== undefined && kept.reused
    kept.plan = plan
    kept.read = read
    kept.seen = seen
    kept.reused = hot
    if (hot) reused.add(plan)
    return plan
  }
  if (plans === undefined || plans.count >= PLANS_PER_SNAPSHOT) {
    plans = { byPath: new WeakMap(), count: 0 }
    plansBySnapshot.set(context.snapshot, plans)
  }
  let list = plans.byPath.get(path)
  if (list === undefined) {
    list = []
    plans.byPath.set(path, list)
  }
  if (list.length >= PLANS_PER_PATH) list.shift()
  else plans.count++
  list.push({
    origin: dispatch.origin,
    dispatchType: dispatch.dispatchType,
    zone: dispatch.zone,
    pickupNode: dispatch.pickupNode,
    units: dispatch.units,
    purchaseDate: dispatch.purchaseDate,
    deliveryFrom: context.deliveryFrom,
    deliveryUntil: context.deliveryUntil,
    options: context.options,
    clocks: clocksOf(context, dispatch, path),
    read,
    seen,
    plan: undefined,
    reused: false
  })
  return plan
}
