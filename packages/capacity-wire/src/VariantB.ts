import { DispatchType, LocalDate, nonEmpty, SchemaChecks } from "@retail/capacity"
import { Schema } from "effect"
import { DeliveryWindowA, OrNull, ProductAttribute } from "./VariantA.ts"

const { between, Int, minLength, nonNegative, positive } = SchemaChecks

/**
 * Variant B of POST /v1/delivery/capacity, field for field as the spec's tables. Required: the
 * spec's required fields (purchaseDate, saleChannel, deliveryData, items) plus, per item,
 * skuCode and quantity, and deliveryData's latitude and longitude (distances are measured from
 * them). An item without an origin has one chosen by origin search (VariantBMapping), whether or
 * not calculationOptions.calculate asks for it. Unknown fields are ignored and not echoed.
 */

const Text = Schema.String
const RequiredText = Schema.String.check(minLength(1, "must not be empty"))
const PositiveInt = Int.check(positive("must be an integer greater than 0"))
const NonNegative = Schema.Number.check(nonNegative("must be >= 0"))
/** Absent is fine; present must be valid (no `undefined` alternative in messages). */
const opt = Schema.optionalKey
const Latitude = Schema.Number.check(between(-90, 90, "must be between -90 and 90"))
const Longitude = Schema.Number.check(between(-180, 180, "must be between -180 and 180"))

export const DispatchModeB = Schema.Literals(["HOME_DELIVERY", "STORE_WITHDRAWAL", "ALL_DISPATCH_MODES"])
export type DispatchModeB = typeof DispatchModeB.Type

/** The only values the service implements; anything else is a 400 naming these. */
export const CalculateOption = Schema.Literal("SEARCH_ORIGINS_BY_COORDINATES")
export const OptimizationOption = Schema.Literal("PROXIMITY_STORE")

export const CalculationOptions = Schema.Struct({
  calculate: opt(CalculateOption),
  rangeStart: opt(LocalDate),
  rangeEnd: opt(LocalDate),
  optimization: opt(OptimizationOption),
  maxOrigins: opt(PositiveInt),
  maxItemsPerOrigin: opt(PositiveInt),
  /** km */
  maxDistancePickingStore: opt(NonNegative),
  maxPickupPoint: opt(Schema.NullOr(PositiveInt)),
  validateStock: opt(Schema.Boolean),
  dispatchCostEnabled: opt(Schema.Boolean),
  pickupCompanyCode: opt(Text),
  useExternalPickupCompanyCode: opt(Schema.Boolean),
  useExternalDeliveryCompanyCode: opt(Schema.Boolean)
})
export type CalculationOptions = typeof CalculationOptions.Type

export const DeliveryData = Schema.Struct({
  latitude: Latitude,
  longitude: Longitude,
  zone: opt(Text),
  ubigeoCode: opt(Text),
  destination: opt(Text)
})
export type DeliveryData = typeof DeliveryData.Type

export const ItemB = Schema.Struct({
  skuCode: RequiredText,
  origin: opt(Text),
  companyCode: opt(Text),
  line: opt(Text),
  presentationCode: opt(Text),
  division: opt(Text),
  measurable: opt(Text),
  routePriority: opt(Int),
  /** Units counted against capacity and stock; defaults to quantity rounded up. */
  units: opt(PositiveInt),
  quantity: Schema.Number.check(positive("must be greater than 0")),
  /** kg per unit */
  weight: opt(NonNegative),
  /** cm */
  height: opt(NonNegative),
  width: opt(NonNegative),
  length: opt(NonNegative),
  /** cm³ per unit */
  volume: opt(NonNegative),
  attributes: opt(Schema.Array(ProductAttribute))
})
export type ItemB = typeof ItemB.Type

export const DeliveryRequestB = Schema.Struct({
  purchaseDate: LocalDate,
  isLastRoute: opt(Schema.Boolean),
  dispatchType: opt(DispatchType),
  dispatchMode: opt(DispatchModeB),
  saleChannel: RequiredText,
  entitySale: opt(Text),
  hasFreightAttributeConfiguration: opt(Schema.Boolean),
  calculationOptions: opt(CalculationOptions),
  deliveryData: DeliveryData,
  items: nonEmpty(ItemB)
})
export type DeliveryRequestB = typeof DeliveryRequestB.Type

export const AddressInfoB = Schema.Struct({
  address: Schema.String,
  district: Schema.String,
  province: Schema.String,
  ubigeoCode: Schema.String,
  country: Schema.String,
  latitude: Schema.Number,
  longitude: Schema.Number
})

export const EntityDetails = Schema.Struct({
  entityType: Schema.String,
  entityCode: Schema.String,
  name: Schema.String,
  shortName: Schema.String,
  /** The node's, null when the network gives it none (as the three below). */
  platformWarehouseId: OrNull(Schema.String),
  platformDockId: OrNull(Schema.String),
  contactNumber: Schema.String,
  pickupPointId: OrNull(Schema.String),
  deliveryTime: OrNull(Schema.String),
  addressInfo: AddressInfoB
})
export type EntityDetails = typeof EntityDetails.Type

export const TraceDetailB = Schema.Struct({
  sourceNode: Schema.String,
  targetNode: Schema.String,
  route: Schema.String,
  usedDispatchCapacity: Schema.Int,
  usedPickingCapacity: Schema.Int,
  dispatchUnits: Schema.Int,
  leadTime: Schema.Int,
  daysOfWeek: Schema.String,
  dispatchDate: Schema.String,
  departureDate: Schema.String,
  receptionDate: Schema.String
})

export const DeliveryTraceB = Schema.Struct({
  deliveryDate: Schema.String,
  /** Always null: the spec's sample has null and does not show its type. */
  shippingEstimate: Schema.Null,
  details: Schema.Array(TraceDetailB),
  deliveryWindows: Schema.Array(DeliveryWindowA)
})
export type DeliveryTraceB = typeof DeliveryTraceB.Type

export const ArriveDateB = Schema.Struct({ node: Schema.String, arriveDate: Schema.String })
export type ArriveDateB = typeof ArriveDateB.Type

export const CapacityErrorB = Schema.Struct({
  code: Schema.String,
  details: Schema.Array(Schema.Struct({
    errorCode: Schema.String,
    description: Schema.String,
    sku: Schema.String,
    requestedQuantity: Schema.Number,
    availableQuantity: Schema.Number
  })),
  providerDetails: Schema.Struct({
    /** The node short of stock or capacity; null when no origin could be chosen. */
    code: OrNull(Schema.String),
    message: Schema.String,
    detail: Schema.String,
    detailCapacity: Schema.Array(Schema.Struct({ message: Schema.String })),
    detailStock: Schema.Array(Schema.Struct({
      sku: Schema.String,
      warningMessage: Schema.String,
      requestedQuantity: Schema.Number,
      availableQuantity: Schema.Number
    }))
  })
})
export type CapacityErrorB = typeof CapacityErrorB.Type

export const LogisticsCapacity = Schema.Struct({
  /** Null for the entry of the items no origin could be chosen for. */
  origin: OrNull(Schema.String),
  /** Null when deliveryData names no destination, ubigeo or zone the network knows. */
  destination: OrNull(Schema.String),
  zone: OrNull(Schema.String),
  /** Route ids joined by `>`; null when there is none (no route, no origin, or a pickup at the origin store). */
  route: OrNull(Schema.String),
  pickingDate: OrNull(Schema.String),
  message: Schema.String,
  dispatchType: DispatchType,
  dispatchMode: Schema.Literals(["HOME_DELIVERY", "STORE_WITHDRAWAL"]),
  /** Null when no delivery date was planned. */
  deliveryCost: OrNull(Schema.Number),
  pickingDays: Schema.Array(Schema.String),
  processingDays: OrNull(Schema.Int),
  leadTimes: Schema.Array(Schema.Int),
  routeDaysOfWeek: Schema.Array(Schema.Array(Schema.String)),
  deliveryDates: Schema.Array(Schema.Array(Schema.String)),
  /** Null when there is no origin node. */
  originEntityDetails: OrNull(EntityDetails),
  /** The pickup store; null for home delivery. */
  pickupEntityDetails: OrNull(EntityDetails),
  deliveryTrace: Schema.Array(DeliveryTraceB),
  arriveDates: Schema.Array(ArriveDateB),
  detailedCapacityError: Schema.Array(CapacityErrorB),
  dispatchItems: Schema.Array(ItemB)
})
export type LogisticsCapacity = typeof LogisticsCapacity.Type

export const DeliveryResponseB = Schema.Struct({
  request: DeliveryRequestB,
  logisticsCapacity: Schema.Array(LogisticsCapacity),
  prioritizationCriteria: Schema.String
})
export type DeliveryResponseB = typeof DeliveryResponseB.Type

/** Variant B error body, for every non-200 status of variant B. */
export const ErrorBodyB = Schema.Struct({
  code: Schema.String,
  message: Schema.String,
  details: Schema.Record(Schema.String, Schema.Unknown)
})
export type ErrorBodyB = typeof ErrorBodyB.Type
