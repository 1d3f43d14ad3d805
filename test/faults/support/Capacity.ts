import { Schema } from "effect"

// The demo network's stores pick 120 units a day (one pool).
export const STORE = "TD-MIRAFLORES"
export const STORE_CAPACITY = 120

/** A variant A request for one unit picked up at STORE. */
export const pickupRequest = {
  purchaseDate: "2027-03-01",
  items: [{
    origin: STORE, entityType: "TD", skuCode: "SKU-CELULAR-A54", zone: "", dispatchType: "NORMAL", quantity: 1,
    destination: STORE, latitude: -12.12, longitude: -77.03, deliveryMode: "STORE_WITHDRAWAL", weight: 1
  }]
}

/** The one dispatch answered for pickupRequest, with what an order of it names (a pickup at the origin store has no route: null). */
export const Offer = Schema.Tuple([Schema.Struct({
  dispatchCode: Schema.String,
  route: Schema.NullOr(Schema.String),
  pickingDate: Schema.String,
  deliveryTrace: Schema.NonEmptyArray(Schema.Struct({ deliveryDate: Schema.String, details: Schema.Array(Schema.Unknown) }))
})])
export type Offer = typeof Offer.Type[0]

/** The order of `units` that takes the offer, in the terms of the answer (docs/capacity.md, consumptions). */
export const orderOf = (offer: Offer, orderId: string, units: number) => ({
  orderId,
  dispatchCode: offer.dispatchCode,
  route: offer.route,
  pickingDate: offer.pickingDate,
  details: offer.deliveryTrace[0].details,
  deliveryDate: offer.deliveryTrace[0].deliveryDate,
  units
})
