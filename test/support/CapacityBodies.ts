/** A variant A item of the demo network: one TV from CD Lurín, home delivery to Miraflores (150122), with `overrides`. */
export const variantAItem = (overrides: Record<string, unknown> = {}) => ({
  origin: "CD-LURIN",
  entityType: "CD",
  skuCode: "SKU-TV-55-4K",
  zone: "",
  dispatchType: "NORMAL",
  quantity: 1,
  destination: "150122",
  latitude: -12.12,
  longitude: -77.03,
  deliveryMode: "HOME_DELIVERY",
  ...overrides
})
