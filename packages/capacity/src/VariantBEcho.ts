import type { CalculationOptions, DeliveryRequestB, ItemB } from "./VariantB.ts"

/** Pickup stores offered when maxPickupPoint is absent or null. */
export const DEFAULT_MAX_PICKUP_POINTS = 3

/** An item as the answer echoes it: `units` filled in (quantity rounded up) when the request left it out. */
export const itemWithDefaults = (item: ItemB): ItemB =>
  item.units !== undefined ? item : { ...item, units: Math.ceil(item.quantity) }

/**
 * The request as the service read it, every default it applied filled in (docs/capacity.md,
 * "Variant B", defaults): what the answer's `request` echoes. Fields with no default (a bound that
 * is absent means no bound, a flag the service ignores) stay absent. `searched`: origins were
 * searched, so `calculate` is SEARCH_ORIGINS_BY_COORDINATES whether or not it was sent.
 */
export const requestWithDefaults = (
  request: DeliveryRequestB,
  items: ReadonlyArray<ItemB>,
  searched: boolean
): DeliveryRequestB => {
  const sent = request.calculationOptions
  const calculationOptions: CalculationOptions = {
    ...sent,
    ...(searched ? { calculate: "SEARCH_ORIGINS_BY_COORDINATES" } : {}),
    optimization: sent?.optimization ?? "PROXIMITY_STORE",
    maxPickupPoint: sent?.maxPickupPoint ?? DEFAULT_MAX_PICKUP_POINTS,
    validateStock: sent?.validateStock ?? true,
    dispatchCostEnabled: sent?.dispatchCostEnabled ?? true
  }
  return {
    ...request,
    dispatchType: request.dispatchType ?? "NORMAL",
    dispatchMode: request.dispatchMode ?? "HOME_DELIVERY",
    hasFreightAttributeConfiguration: request.hasFreightAttributeConfiguration ?? false,
    calculationOptions,
    items
  }
}
