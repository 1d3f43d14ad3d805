import type { Day } from "./Calendar.ts"
import { clockOf, type DispatchToPlan, type PathPlan, type PlanContext, planPath } from "./Planner.ts"
import type { RoutePath } from "./Routing.ts"

type Usage = ReadonlyMap<Day, number>

interface CachedPlan {
  /** Every usage map the plan could have read, as it was: owners replace maps whole, never edit them. */
  readonly read: ReadonlyArray<Usage>
  readonly plan: PathPlan
}

/** Plans kept per path; the oldest goes first (keys change with the day, the units and the cut-offs). */
const PLANS_PER_PATH = 64

/**
 * Plans by path: a path belongs to one snapshot (a network replacement builds new paths), so a
 * snapshot's plans go with it.
 */
const plansByPath = new WeakMap<RoutePath, Map<string, CachedPlan>>()

/**
 * Everything `planPath` reads besides the snapshot's fixed model and the usage maps: the dispatch,
 * the request's delivery range, the options, and of each clock it consults only the local day and
 * whether the cut-off it is compared with has passed.
 */
const keyOf = (context: PlanContext, dispatch: DispatchToPlan, path: RoutePath): string => {
  const { origin } = dispatch
  const originClock = clockOf(context, origin)
  let key = `${origin.code}|${dispatch.dispatchType}|${dispatch.deliveryMode}|${dispatch.zone?.code ?? ""}|` +
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
 * the same inputs give the same plan, so answers stay exactly what a fresh evaluation gives.
 */
export const cachedPlanPath = (context: PlanContext, dispatch: DispatchToPlan, path: RoutePath): PathPlan => {
  const key = keyOf(context, dispatch, path)
  const read = usageOf(dispatch, path)
  let plans = plansByPath.get(path)
  const kept = plans?.get(key)
  if (kept !== undefined && sameMaps(kept.read, read)) return kept.plan
  const plan = planPath(context, dispatch, path)
  if (plans === undefined) {
    plans = new Map()
    plansByPath.set(path, plans)
  }
  plans.delete(key)
  if (plans.size >= PLANS_PER_PATH) {
    const oldest = plans.keys().next()
    if (oldest.done !== true) plans.delete(oldest.value)
  }
  plans.set(key, { read, plan })
  return plan
}
