/**
 * Checkout requests this process has taken, through either adapter: quotes
 * (DeliveryCapacityAnswers.ts) and orders (TakeOrder.ts). A plain count, read by comparing two
 * readings: whether checkout was served in between. The batch workers' thread gives way to the
 * event loop only while it moves (services/server, LoopPacing.ts): an event loop late with a
 * load's own publishing is not worth waiting for.
 */
let taken = 0

export const CheckoutTraffic = {
  /** One more checkout request taken. */
  taken: (): void => {
    taken++
  },
  /** How many so far. */
  count: (): number => taken
} as const
