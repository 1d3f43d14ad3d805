/** README.md's example requests (Delivery capacity, variants A and B), as they are sent. */
export const README_REQUEST_A = {
  purchaseDate: "2027-03-01",
  items: [{
    origin: "CD-LURIN", entityType: "CD", skuCode: "SKU-TV-55-4K", zone: "", dispatchType: "NORMAL",
    quantity: 1, destination: "150122", latitude: -12.12, longitude: -77.03, deliveryMode: "HOME_DELIVERY", weight: 2
  }]
}

const MIRAFLORES = { latitude: -12.1219, longitude: -77.0297, ubigeoCode: "150122", destination: "Av. Larco 345" }

const SEARCH_NEAR = {
  calculate: "SEARCH_ORIGINS_BY_COORDINATES",
  optimization: "PROXIMITY_STORE",
  maxDistancePickingStore: 30,
  maxPickupPoint: 2
}

export const README_REQUEST_B = {
  purchaseDate: "2027-03-01",
  saleChannel: "WEB",
  dispatchMode: "ALL_DISPATCH_MODES",
  calculationOptions: SEARCH_NEAR,
  deliveryData: MIRAFLORES,
  items: [{ skuCode: "SKU-SMARTWATCH-GT", quantity: 2, weight: 0.2 }]
}

/**
 * Variant B, all dispatch modes, origins searched within 30 km of Miraflores, for SKUs of the
 * generated catalogue from the most popular to the rarely stocked (`skuCodes` most popular first):
 * the search runs through the national stock, not the demo's few SKUs.
 */
export const nationalSkuRequestB = (skuCodes: ReadonlyArray<string>, items: number) => {
  const ranks = [0, 9, 99, 999, 9_999]
  return {
    purchaseDate: "2027-03-01",
    saleChannel: "WEB",
    dispatchMode: "ALL_DISPATCH_MODES",
    calculationOptions: SEARCH_NEAR,
    deliveryData: MIRAFLORES,
    items: Array.from({ length: items }, (_, i) => ({
      skuCode: skuCodes[Math.min(ranks[i % ranks.length] ?? 0, skuCodes.length - 1)] ?? "",
      quantity: 1,
      weight: 0.2 + (i % 3)
    }))
  }
}
