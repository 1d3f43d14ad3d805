import { Schema } from "effect"

/** What a client reads of a variant A answer to place an order for one of its dispatches. */
const Offer = Schema.Struct({
  dispatchCode: Schema.NullOr(Schema.String),
  route: Schema.NullOr(Schema.String),
  pickingDate: Schema.NullOr(Schema.String),
  deliveryTrace: Schema.NonEmptyArray(Schema.Struct({
    deliveryDate: Schema.String,
    details: Schema.Array(Schema.Unknown),
    deliveryWindows: Schema.Array(Schema.Struct({ deliveryWindow: Schema.String, blocked: Schema.Boolean }))
  }))
})
export type Offer = typeof Offer.Type

/** A variant A answer's results (one per item, in item order), or undefined when the text is not one. */
export const decodeOffers = Schema.decodeUnknownResult(Schema.fromJsonString(Schema.NonEmptyArray(Offer)), { onExcessProperty: "ignore" })

/** An order as a client places it (docs/capacity.md): the answer's dispatch, its first offered date and free window. */
export const orderOf = (offer: Offer, orderId: string, units: number) => {
  const [trace] = offer.deliveryTrace
  const window = trace.deliveryWindows.find((candidate) => !candidate.blocked)
  return {
    orderId,
    dispatchCode: offer.dispatchCode,
    route: offer.route,
    pickingDate: offer.pickingDate,
    details: trace.details,
    deliveryDate: trace.deliveryDate,
    ...(window === undefined ? {} : { deliveryWindow: window.deliveryWindow }),
    units
  }
}
