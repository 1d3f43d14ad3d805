import { type Day, formatDay } from "./Calendar.ts"
import type { DispatchResult } from "./EngineTypes.ts"
import type { CapacityUse } from "./Ledger.ts"

/**
 * What placing an order for a planned dispatch takes from the ledger: picking at the origin,
 * each leg's departure and its source's dispatch pool, and one delivery in the chosen window
 * (home delivery only). Feed it to `consume` with the order id.
 */
export const usesOfDispatch = (
  dispatch: DispatchResult,
  delivery: { readonly date: Day; readonly window: string } | undefined
): ReadonlyArray<CapacityUse> => {
  const origin = dispatch.originNode
  if (origin === undefined || dispatch.pickingDate === undefined) return []
  const uses: Array<CapacityUse> = [{
    resource: { _tag: "Picking", node: origin.code, pool: origin.picking[dispatch.dispatchType].pool },
    date: formatDay(dispatch.pickingDate),
    amount: dispatch.units
  }]
  for (const leg of dispatch.legs) {
    const date = formatDay(leg.departureDate)
    uses.push({ resource: { _tag: "RouteDeparture", route: leg.route.id }, date, amount: dispatch.units })
    uses.push({
      resource: { _tag: "NodeDispatch", node: leg.route.source.code, pool: leg.route.source.dispatch[dispatch.dispatchType].pool },
      date,
      amount: dispatch.units
    })
  }
  if (delivery !== undefined && dispatch.deliveryMode === "HOME_DELIVERY") {
    uses.push({
      resource: { _tag: "ZoneWindow", zone: dispatch.destination, window: delivery.window },
      date: formatDay(delivery.date),
      amount: 1
    })
  }
  return uses
}
