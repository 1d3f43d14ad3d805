import type { Day } from "./Calendar.ts"
import { clockOf, type DispatchToPlan, type PathPlan, type PlanContext, planPath } from "./Planner.ts"
import type { RoutePath } from "./Routing.ts"
import type { Snapshot } from "./Snapshot.ts"

type Usage = ReadonlyMap<Day, number>

interface CachedPlan {
  /** Every usage map the plan could have read, as it was: owners replace maps whole, never edit them. */
  readonly read: ReadonlyArray<Usage>
  readonly plan: PathPlan
  /** Served more than one dispatch (then in `reused`). */
  reused: boolean
}

/**
 * Plans kept per snapshot, the oldest dropped first: bounds memory whatever the traffic (a plan with
 * its answer parts and their text is a few KB); keys change with the day, the units and the cut-offs.
 */
export const PLANS_PER_SNAPSHOT = 2048

/**
 * A key seen once: its plan is kept from the second time, so traffic that never repeats keeps no
 * plan alive (kept plans outlive the young generation, and dropping them costs full collections).
 */
const SEEN = "seen"

/** Plans by snapshot (a network replacement builds a new one, and its plans go with the old). */
const plansBySnapshot = new WeakMap<Snapshot, Map<string, CachedPlan | typeof SEEN>>()

/** A number per path, for keys (a path belongs to one snapshot). */
const pathIds = new WeakMap<RoutePath, number>()
let nextPathId = 0
const pathIdOf = (path: RoutePath): number => {
  let id = pathIds.get(path)
  if (id === undefined) {
    id = nextPathId++
    pathIds.set(path, id)
  }
  return id
}

const reused = new WeakSet<PathPlan>()

/**
 * Whether a plan has served more than one dispatch: what is built from it is worth keeping with it
 * from then on (a plan used once, as under traffic that never repeats, costs nothing more).
 */
export const isReusedPlan = (plan: PathPlan): boolean => reused.has(plan)

/**
 * Everything `planPath` reads besides the snapshot's fixed model and the usage maps: the dispatch,
 * the request's delivery range, the options, and of each clock it consults only the local day and
 * whether the cut-off it is compared with has passed.
 */
const keyOf = (context: PlanContext, dispatch: DispatchToPlan, path: RoutePath): string => {
  const { origin } = dispatch
  const originClock = clockOf(context, origin)
  // One path may reach several zones (searchPaths), so the zone is part of the key.
  let key = `${pathIdOf(path)}|${origin.code}|${dispatch.dispatchType}|${dispatch.deliveryMode}|${dispatch.zone?.code ?? ""}|` +
    `${dispatch.pickupNode?.code ?? ""}|${dispatch.units}|${dispatch.purchaseDate}|${context.deliveryFrom}|` +
    `${context.deliveryUntil}|${context.options.horizonDays}|${context.options.deliveryDatesCount}|` +
    `${originClock.today}${originClock.minute >= origin.cutoffMinute ? "+" : "-"}`
  for (const route of path) {
    const clock = clockOf(context, route.source)
    key += `|${clock.today}${clock.minute >= route.cutoffMinute ? "+" : "-"}`
  }
  return key
}

/** The usage maps `planPath` may read for this dispatch and path, in a fixed order. */
const usageOf = (dispatch: DispatchToPlan, path: RoutePath): Array<Usage> => {
  const read: Array<Usage> = [dispatch.origin.picking[dispatch.dispatchType].used]
  for (const route of path) {
    read.push(route.used)
    read.push(route.source.dispatch[dispatch.dispatchType].used)
  }
  if (dispatch.zone !== undefined) for (const window of dispatch.zone.windows) read.push(window.used)
  return read
}

const sameMaps = (kept: ReadonlyArray<Usage>, now: ReadonlyArray<Usage>): boolean => {
  if (kept.length !== now.length) return false
  for (let i = 0; i < kept.length; i++) if (kept[i] !== now[i]) return false
  return true
}

/**
 * `planPath`, reusing the plan of an earlier equal dispatch on the same path while no usage map it
 * may have read was replaced (a consumption, a release or a reload replaces the maps it touches):
 * the same inputs give the same plan, so answers stay exactly what a fresh evaluation gives. A plan
 * is kept from the second time its key is asked.
 */
export const cachedPlanPath = (context: PlanContext, dispatch: DispatchToPlan, path: RoutePath): PathPlan => {
  const key = keyOf(context, dispatch, path)
  const read = usageOf(dispatch, path)
  let plans = plansBySnapshot.get(context.snapshot)
  const kept = plans?.get(key)
  if (kept !== undefined && kept !== SEEN && sameMaps(kept.read, read)) {
    if (!kept.reused) {
      kept.reused = true
      reused.add(kept.plan)
    }
    return kept.plan
  }
  const plan = planPath(context, dispatch, path)
  if (plans === undefined) {
    plans = new Map()
    plansBySnapshot.set(context.snapshot, plans)
  }
  if (kept === undefined && plans.size >= PLANS_PER_SNAPSHOT) {
    const oldest = plans.keys().next()
    if (oldest.done !== true) plans.delete(oldest.value)
  }
  plans.set(key, kept === undefined ? SEEN : { read, plan, reused: false })
  return plan
}
