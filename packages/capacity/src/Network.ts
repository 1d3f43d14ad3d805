import { Effect, Option, Schema } from "effect"
import { isRealDate, isValidTimeZone, parseClock } from "./Calendar.ts"
import { between, filter, Int, minItems, nonNegative, pattern } from "./Checks.ts"

/** The network document as a user PUTs it (and GET returns it). Cross references are checked in NetworkValidation. */

export const DayOfWeekSchema = Schema.Literals(["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"])

export const DispatchType = Schema.Literals(["NORMAL", "EXPRESS"])
export type DispatchType = typeof DispatchType.Type

export const DeliveryMode = Schema.Literals(["HOME_DELIVERY", "STORE_WITHDRAWAL"])
export type DeliveryMode = typeof DeliveryMode.Type

export const NodeType = Schema.Literals(["CD", "TD", "PRV", "SELLER", "HUB"])
export type NodeType = typeof NodeType.Type

export const LocalDate = Schema.String.check(filter(isRealDate, "expected a real date YYYY-MM-DD"))

export const ClockTime = Schema.String.check(
  filter((text: string) => Option.isSome(parseClock(text)), "expected a time HH:MM (00:00-23:59)")
)

/** An array that must have at least one element (reported as "must not be empty", not as a missing [0]). */
export const nonEmpty = <S extends Schema.Constraint>(element: S) => Schema.Array(element).check(minItems(1, "must not be empty"))

export const Code = Schema.String.check(pattern(/^\S(.*\S)?$/, "expected a non-empty code"))

export const Units = Int.check(nonNegative("expected an integer >= 0"))

export const Ubigeo = Schema.String.check(pattern(/^\d{6}$/, "expected a 6-digit ubigeo code"))

/**
 * A key that may be left out (or be undefined): decoded as `value()` then, a fresh value each time
 * (Effect 3's `optionalWith(schema, { default })`).
 */
const orDefault = <S extends Schema.Constraint>(schema: S, value: () => S["Type"]) =>
  Schema.withDecodingDefaultType<S>(Effect.sync(value))(schema)

export const TimeZone = Schema.String.check(filter(isValidTimeZone, "expected an IANA time zone such as America/Lima"))

/** One number shared by both dispatch types, or one pool per dispatch type. */
export const CapacityByDispatchType = Schema.Union([Units, Schema.Struct({ NORMAL: Units, EXPRESS: Units })])
export type CapacityByDispatchType = typeof CapacityByDispatchType.Type

export const AddressInfo = Schema.Struct({
  address: Schema.String,
  district: Schema.String,
  province: Schema.String,
  ubigeoCode: Ubigeo,
  country: Schema.String,
  latitude: Schema.Number.check(between(-90, 90)),
  longitude: Schema.Number.check(between(-180, 180))
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
  timeZone: orDefault(TimeZone, () => "America/Lima"),
  /** Days the node works (picks at an origin, cross-docks at a hub, opens for pickup at a store). */
  pickingDays: Schema.Array(DayOfWeekSchema),
  /** Orders after this local time are picked on the next picking day. */
  pickingCutoff: ClockTime,
  /** Working days between picking and being ready to dispatch (0 = same day). */
  processingDays: Units,
  holidays: orDefault(Schema.Array(LocalDate), () => []),
  pickingCapacity: CapacityByDispatchType,
  dispatchCapacity: CapacityByDispatchType
})
export type NetworkNode = typeof NetworkNode.Type

export const LeadTime = Schema.Struct({
  days: Units,
  unit: Schema.Literals(["BUSINESS_DAYS", "CALENDAR_DAYS"])
})
export type LeadTime = typeof LeadTime.Type

const NonNegative = Schema.Number.check(nonNegative("expected a number >= 0"))

/** Cost of one leg for one dispatch: base + perKg * dispatch weight (kg). */
export const CostRule = Schema.Struct({ base: NonNegative, perKg: NonNegative })
export type CostRule = typeof CostRule.Type

export const NodeTarget = Schema.Struct({ kind: Schema.Literal("NODE"), node: Code })
export const ZonesTarget = Schema.Struct({ kind: Schema.Literal("ZONES"), zones: nonEmpty(Code) })
export const RouteTarget = Schema.Union([NodeTarget, ZonesTarget])
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
  deliveryDays: orDefault(Schema.Array(DayOfWeekSchema), () => ["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"] as const),
  windows: nonEmpty(DeliveryWindow),
  blockedDates: orDefault(Schema.Array(LocalDate), () => [])
})
export type Zone = typeof Zone.Type

export const StockEntry = Schema.Struct({ node: Code, sku: Code, units: Units })
export type StockEntry = typeof StockEntry.Type

export const NetworkDocument = Schema.Struct({
  nodes: Schema.Array(NetworkNode),
  routes: Schema.Array(NetworkRoute),
  zones: Schema.Array(Zone),
  stock: orDefault(Schema.Array(StockEntry), () => [])
})
export type NetworkDocument = typeof NetworkDocument.Type
export type NetworkDocumentInput = typeof NetworkDocument.Encoded
