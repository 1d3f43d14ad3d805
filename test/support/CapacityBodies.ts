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

/** What an order reads of a variant A answer. */
export interface QuotedDispatch {
  readonly dispatchCode: string
  readonly route: string | null
  readonly pickingDate: string | null
  readonly deliveryTrace: ReadonlyArray<{
    readonly deliveryDate: string
    readonly details: ReadonlyArray<unknown>
    readonly deliveryWindows: ReadonlyArray<{ readonly deliveryWindow: string; readonly blocked: boolean }>
  }>
}

/** An order as a client places it: the dispatch's fields from the answer, the first offered date and free window. */
export const orderOf = (answer: QuotedDispatch, orderId: string, units: number) => {
  const trace = answer.deliveryTrace[0]!
  const window = trace.deliveryWindows.find((candidate) => !candidate.blocked)
  return {
    orderId,
    dispatchCode: answer.dispatchCode,
    route: answer.route,
    pickingDate: answer.pickingDate,
    details: trace.details,
    deliveryDate: trace.deliveryDate,
    ...(window === undefined ? {} : { deliveryWindow: window.deliveryWindow }),
    units
  }
}
