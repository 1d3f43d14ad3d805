import { Option, Schema } from "effect"
import { isRealDate, isValidTimeZone, parseClock } from "./Calendar.ts"

/** The network document as a user PUTs it (and GET returns it). Cross references are checked in NetworkValidation. */

export const DayOfWeekSchema = Schema.Literal("MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN")

export const DispatchType = Schema.Literal("NORMAL", "EXPRESS")
export type DispatchType = typeof DispatchType.Type

export const DeliveryMode = Schema.Literal("HOME_DELIVERY", "STORE_WITHDRAWAL")
export type DeliveryMode = typeof DeliveryMode.Type

export const NodeType = Schema.Literal("CD", "TD", "PRV", "SELLER", "HUB")
export type NodeType = typeof NodeType.Type

export const LocalDate = Schema.String.pipe(
  Schema.filter(isRealDate, { message: () => "expected a real date YYYY-MM-DD" })
)

export const ClockTime = Schema.String.pipe(
  Schema.filter((text) => Option.isSome(parseClock(text)), { message: () => "expected a time HH:MM (00:00-23:59)" })
)

/** An array that must have at least one element (reported as "must not be empty", not as a missing [0]). */
export const nonEmpty = <A, I, R>(element: Schema.Schema<A, I, R>) =>
  Schema.Array(element).pipe(Schema.minItems(1, { message: () => "must not be empty" }))

export const Code = Schema.String.pipe(Schema.pattern(/^\S(.*\S)?$/, { message: () => "expected a non-empty code" }))

export const Units = Schema.Int.pipe(Schema.nonNegative({ message: () => "expected an integer >= 0" }))

export const Ubigeo = Schema.String.pipe(Schema.pattern(/^\d{6}$/, { message: () => "expected a 6-digit ubigeo code" }))

export const TimeZone = Schema.String.pipe(
  Schema.filter(isValidTimeZone, { message: () => "expected an IANA time zone such as America/Lima" })
)

/** One number shared by both dispatch types, or one pool per dispatch type. */
export const CapacityByDispatchType = Schema.Union(Units, Schema.Struct({ NORMAL: Units, EXPRESS: Units }))
export type CapacityByDispatchType = typeof CapacityByDispatchType.Type

export const AddressInfo = Schema.Struct({
  address: Schema.String,
  district: Schema.String,
  province: Schema.String,
  ubigeoCode: Ubigeo,
  country: Schema.String,
  latitude: Schema.Number.pipe(Schema.between(-90, 90)),
  longitude: Schema.Number.pipe(Schema.between(-180, 180))
})
export type AddressInfo = typeof AddressInfo.Type

export const Contact = Schema.Struct({
  name: Schema.optional(Schema.String),
  phone: Schema.String,
  email: Schema.optional(Schema.String)
})

export const NetworkNode = Schema.Struct({
  code: Code,
  type: NodeType,
  name: Schema.String,
  shortName: Schema.String,
  address: AddressInfo,
  contact: Contact,
  /** Identifiers shown in variant B's EntityDetails; optional, "" when absent. */
  platformWarehouseId: Schema.optional(Schema.String),
  platformDockId: Schema.optional(Schema.String),
  pickupPointId: Schema.optional(Schema.String),
  /** Free text shown as EntityDetails.deliveryTime, e.g. a store's pickup hours "10:00-22:00". */
  deliveryTime: Schema.optional(Schema.String),
  timeZone: Schema.optionalWith(TimeZone, { default: () => "America/Lima" }),
  /** Days the node works (picks at an origin, cross-docks at a hub, opens for pickup at a store). */
  pickingDays: Schema.Array(DayOfWeekSchema),
  /** Orders after this local time are picked on the next picking day. */
  pickingCutoff: ClockTime,
  /** Working days between picking and being ready to dispatch (0 = same day). */
  processingDays: Units,
  holidays: Schema.optionalWith(Schema.Array(LocalDate), { default: () => [] }),
  pickingCapacity: CapacityByDispatchType,
  dispatchCapacity: CapacityByDispatchType
})
export type NetworkNode = typeof NetworkNode.Type

export const LeadTime = Schema.Struct({
  days: Units,
  unit: Schema.Literal("BUSINESS_DAYS", "CALENDAR_DAYS")
})
export type LeadTime = typeof LeadTime.Type

const NonNegative = Schema.Number.pipe(Schema.nonNegative({ message: () => "expected a number >= 0" }))

/** Cost of one leg for one dispatch: base + perKg * dispatch weight (kg). */
export const CostRule = Schema.Struct({ base: NonNegative, perKg: NonNegative })
export type CostRule = typeof CostRule.Type

export const NodeTarget = Schema.Struct({ kind: Schema.Literal("NODE"), node: Code })
export const ZonesTarget = Schema.Struct({ kind: Schema.Literal("ZONES"), zones: nonEmpty(Code) })
export const RouteTarget = Schema.Union(NodeTarget, ZonesTarget)
export type RouteTarget = typeof RouteTarget.Type

export const NetworkRoute = Schema.Struct({
  id: Code,
  source: Code,
  target: RouteTarget,
  dispatchTypes: nonEmpty(DispatchType),
  deliveryModes: nonEmpty(DeliveryMode),
  departureDays: nonEmpty(DayOfWeekSchema),
  /** A departure today is missed when the source node's local time is at or after this. */
  departureCutoff: ClockTime,
  leadTime: LeadTime,
  capacityPerDeparture: Units,
  cost: CostRule
})
export type NetworkRoute = typeof NetworkRoute.Type

export const DeliveryWindow = Schema.Struct({
  code: Code,
  start: ClockTime,
  end: ClockTime,
  /** Deliveries per day in this window. */
  capacity: Units
})
export type DeliveryWindow = typeof DeliveryWindow.Type

export const Zone = Schema.Struct({
  code: Code,
  name: Schema.String,
  ubigeos: nonEmpty(Ubigeo),
  deliveryDays: Schema.optionalWith(Schema.Array(DayOfWeekSchema), {
    default: () => ["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"] as const
  }),
  windows: nonEmpty(DeliveryWindow),
  blockedDates: Schema.optionalWith(Schema.Array(LocalDate), { default: () => [] })
})
export type Zone = typeof Zone.Type

export const StockEntry = Schema.Struct({ node: Code, sku: Code, units: Units })
export type StockEntry = typeof StockEntry.Type

export const NetworkDocument = Schema.Struct({
  nodes: Schema.Array(NetworkNode),
  routes: Schema.Array(NetworkRoute),
  zones: Schema.Array(Zone),
  stock: Schema.optionalWith(Schema.Array(StockEntry), { default: () => [] })
})
export type NetworkDocument = typeof NetworkDocument.Type
export type NetworkDocumentInput = typeof NetworkDocument.Encoded
