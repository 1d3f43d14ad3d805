import type { CalculationOptions, DeliveryRequestB, ItemB } from "./VariantB.ts"

/** Pickup stores offered when maxPickupPoint is absent or null. */
export const DEFAULT_MAX_PICKUP_POINTS = 3

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

/**
 * An item as the answer echoes it, shipped from `origin` when given: `units` filled in (quantity
 * rounded up) when the request left it out. Built field by field (skuCode and quantity first, then
 * the rest in ItemB's order; VariantBText.ts writes them in this order): a spread with an extra
 * property makes a slow-path object that JSON.stringify then writes slowly too.
 */
export const echoItem = (item: ItemB, origin: string | undefined): ItemB => {
  const out: Mutable<ItemB> = { skuCode: item.skuCode, quantity: item.quantity }
  const from = origin ?? item.origin
  if (from !== undefined) out.origin = from
  if (item.companyCode !== undefined) out.companyCode = item.companyCode
  if (item.line !== undefined) out.line = item.line
  if (item.presentationCode !== undefined) out.presentationCode = item.presentationCode
  if (item.division !== undefined) out.division = item.division
  if (item.measurable !== undefined) out.measurable = item.measurable
  if (item.routePriority !== undefined) out.routePriority = item.routePriority
  out.units = item.units ?? Math.ceil(item.quantity)
  if (item.weight !== undefined) out.weight = item.weight
  if (item.height !== undefined) out.height = item.height
  if (item.width !== undefined) out.width = item.width
  if (item.length !== undefined) out.length = item.length
  if (item.volume !== undefined) out.volume = item.volume
  if (item.attributes !== undefined) out.attributes = item.attributes
  return out
}

/**
 * The request as the service read it, every default it applied filled in (docs/capacity.md,
 * "Variant B", defaults): what the answer's `request` echoes, `items` as `echoItem` gives them.
 * Fields with no default (a bound that is absent means no bound, a flag the service ignores) stay
 * absent. `searched`: origins were searched, so `calculate` is SEARCH_ORIGINS_BY_COORDINATES
 * whether or not it was sent. Field by field, as `echoItem`.
 */
export const requestWithDefaults = (
  request: DeliveryRequestB,
  items: ReadonlyArray<ItemB>,
  searched: boolean
): DeliveryRequestB => {
  const sent = request.calculationOptions
  const options: Mutable<CalculationOptions> = {}
  if (searched || sent?.calculate !== undefined) options.calculate = "SEARCH_ORIGINS_BY_COORDINATES"
  if (sent?.rangeStart !== undefined) options.rangeStart = sent.rangeStart
  if (sent?.rangeEnd !== undefined) options.rangeEnd = sent.rangeEnd
  options.optimization = sent?.optimization ?? "PROXIMITY_STORE"
  if (sent?.maxOrigins !== undefined) options.maxOrigins = sent.maxOrigins
  if (sent?.maxItemsPerOrigin !== undefined) options.maxItemsPerOrigin = sent.maxItemsPerOrigin
  if (sent?.maxDistancePickingStore !== undefined) options.maxDistancePickingStore = sent.maxDistancePickingStore
  options.maxPickupPoint = sent?.maxPickupPoint ?? DEFAULT_MAX_PICKUP_POINTS
  options.validateStock = sent?.validateStock ?? true
  options.dispatchCostEnabled = sent?.dispatchCostEnabled ?? true
  if (sent?.pickupCompanyCode !== undefined) options.pickupCompanyCode = sent.pickupCompanyCode
  if (sent?.useExternalPickupCompanyCode !== undefined) options.useExternalPickupCompanyCode = sent.useExternalPickupCompanyCode
  if (sent?.useExternalDeliveryCompanyCode !== undefined) options.useExternalDeliveryCompanyCode = sent.useExternalDeliveryCompanyCode

  const out: Mutable<DeliveryRequestB> = {
    purchaseDate: request.purchaseDate,
    saleChannel: request.saleChannel,
    deliveryData: request.deliveryData,
    items
  }
  if (request.isLastRoute !== undefined) out.isLastRoute = request.isLastRoute
  out.dispatchType = request.dispatchType ?? "NORMAL"
  out.dispatchMode = request.dispatchMode ?? "HOME_DELIVERY"
  if (request.entitySale !== undefined) out.entitySale = request.entitySale
  out.hasFreightAttributeConfiguration = request.hasFreightAttributeConfiguration ?? false
  out.calculationOptions = options
  return out
}
