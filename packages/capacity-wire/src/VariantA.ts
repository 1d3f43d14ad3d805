import { DeliveryMode, DispatchType, LocalDate, nonEmpty, SchemaChecks } from "@retail/capacity"
import { Schema } from "effect"

const { between, Int, minLength, nonNegative, positive } = SchemaChecks

/**
 * Variant A of POST /v1/delivery/capacity, field for field as the spec's tables.
 * Mandatory item fields: the spec's core field list (origin, entityType, skuCode, zone,
 * dispatchType, destination, quantity, latitude, longitude, deliveryMode); the rest is optional.
 * Unknown fields (client-sent nodes, route ids, internal dates) are ignored.
 */

const Text = Schema.String
const RequiredText = Schema.String.check(minLength(1, "must not be empty"))

export const ProductAttribute = Schema.Struct({
  attribute: Schema.String,
  attributeValue: Schema.String,
  attributeCode: Schema.String
})

export const EntityType = Schema.Literals(["CD", "TD", "PRV", "SELLER"])

export const DispatchItemA = Schema.Struct({
  origin: RequiredText,
  entityType: EntityType,
  skuCode: RequiredText,
  zone: Text,
  dispatchType: DispatchType,
  quantity: Schema.Number.check(positive("must be greater than 0")),
  destination: Text,
  latitude: Schema.Number.check(between(-90, 90, "must be between -90 and 90")),
  longitude: Schema.Number.check(between(-180, 180, "must be between -180 and 180")),
  deliveryMode: DeliveryMode,
  line: Schema.optional(Text),
  zoneByChannel: Schema.optional(Text),
  measurable: Schema.optional(Text),
  /** Units counted against capacity and stock; defaults to quantity rounded up. */
  units: Schema.optional(Int.check(positive("must be an integer greater than 0"))),
  division: Schema.optional(Text),
  province: Schema.optional(Text),
  /** Weight of one unit in kg. */
  weight: Schema.optional(Schema.Number.check(nonNegative("must be >= 0"))),
  hasFreightAttributeConfiguration: Schema.optional(Schema.Boolean),
  attributes: Schema.optional(Schema.Array(ProductAttribute)),
  saleChannel: Schema.optional(Text),
  presentationCode: Schema.optional(Text),
  entityCode: Schema.optional(Text),
  groupName: Schema.optional(Text)
})
export type DispatchItemA = typeof DispatchItemA.Type

export const DeliveryRequestA = Schema.Struct({
  purchaseDate: LocalDate,
  items: nonEmpty(DispatchItemA),
  isLastRoute: Schema.optional(Schema.Boolean),
  isPurchaseOrderDeliveryDateRequest: Schema.optional(Schema.Boolean)
})
export type DeliveryRequestA = typeof DeliveryRequestA.Type

/** `YYYY-MM-DD`. */
const DateText = Schema.String.annotate({ description: "date YYYY-MM-DD" })
/**
 * A field the spec draws whose value may not exist for this result: `null` then, never a
 * placeholder such as "" or 0 (docs/capacity.md, "No placeholders").
 */
export const OrNull = Schema.NullOr
const NullableDate = OrNull(DateText)

export const TraceDetail = Schema.Struct({
  sourceNode: Schema.String,
  targetNode: Schema.String,
  route: Schema.String,
  usedDispatchCapacity: Schema.Int,
  usedPickingCapacity: Schema.Int,
  dispatchUnits: Schema.Int,
  leadTime: Schema.Int,
  daysOfWeek: Schema.String,
  dispatchDate: DateText,
  departureDate: DateText,
  receptionDate: DateText
})
export type TraceDetail = typeof TraceDetail.Type

export const DeliveryWindowA = Schema.Struct({
  deliveryWindow: Schema.String,
  deliveryWindowStart: Schema.String,
  deliveryWindowEnd: Schema.String,
  blocked: Schema.Boolean
})
export type DeliveryWindowA = typeof DeliveryWindowA.Type

export const DeliveryTrace = Schema.Struct({
  deliveryDate: DateText,
  details: Schema.Array(TraceDetail),
  deliveryWindows: Schema.Array(DeliveryWindowA)
})
export type DeliveryTrace = typeof DeliveryTrace.Type

export const ArriveDateA = Schema.Struct({
  node: Schema.String,
  /** The node when it is a supplier or seller (a purchase order is placed there), else null. */
  nodePurchaseOrder: OrNull(Schema.String),
  /** The route arrived by; null for the origin's picking entry. */
  edgeId: OrNull(Schema.String),
  /** Null on the entry that says why no date was found. */
  arriveDate: NullableDate,
  code: Schema.Int,
  message: Schema.String
})
export type ArriveDateA = typeof ArriveDateA.Type

export const CapacityErrorDetail = Schema.Struct({
  errorCode: Schema.String,
  description: Schema.String,
  sku: Schema.String,
  requestedQuantity: Schema.Number,
  availableQuantity: Schema.Number
})

export const CapacityErrorA = Schema.Struct({
  code: Schema.String,
  details: Schema.Array(CapacityErrorDetail),
  providerDetails: Schema.Struct({
    providerCode: Schema.String,
    availableCapacity: Schema.Number,
    usedCapacity: Schema.Number,
    totalCapacity: Schema.Number,
    date: DateText
  })
})
export type CapacityErrorA = typeof CapacityErrorA.Type

export const DeliveryResult = Schema.Struct({
  skuCode: Schema.String,
  /** The item's, null when the request did not send it. */
  line: OrNull(Schema.String),
  /** Null when the item has no route (no dispatch is generated). */
  dispatchCode: OrNull(Schema.String),
  /** Null when no delivery date was planned (no route, no stock, no capacity). */
  deliveryCost: OrNull(Schema.Number),
  measurable: OrNull(Schema.String),
  origin: Schema.String,
  zone: Schema.String,
  pickingDays: Schema.Array(Schema.String),
  /** Null when the origin is not a node of the network. */
  processingDays: OrNull(Schema.Int),
  leadTimes: Schema.Array(Schema.Int),
  routeDaysOfWeek: Schema.Array(Schema.Array(Schema.String)),
  /** Route ids joined by `>`; null when there is none (no route, or a pickup at the origin store). */
  route: OrNull(Schema.String),
  pickingDate: NullableDate,
  deliveryDates: Schema.Array(DateText),
  deliveryTrace: Schema.Array(DeliveryTrace),
  message: Schema.String,
  division: OrNull(Schema.String),
  arriveDates: Schema.Array(ArriveDateA),
  detailedCapacityError: Schema.Array(CapacityErrorA)
})
export type DeliveryResult = typeof DeliveryResult.Type

export const DeliveryResponseA = Schema.Array(DeliveryResult)
