// The payload of POST /v1/delivery/capacity as the contract declares it (packages/api/src/CapacityApi.ts:
// Schema.Union(DeliveryRequestA, DeliveryRequestB), packages/capacity/src/VariantA.ts and VariantB.ts),
// written again in Effect 4's Schema, field for field, with the same checks. Messages are not carried
// over (the candidates are measured on valid bodies only); variant B's business rules
// (VariantBDecode.ts) run afterwards in the answer function, as today.
import { Schema } from "effect"
import { isRealDate } from "../../../packages/capacity/src/Calendar.ts"

const Text = Schema.String
const RequiredText = Schema.String.check(Schema.isMinLength(1))
const Positive = Schema.Number.check(Schema.isGreaterThan(0))
const PositiveInt = Schema.Int.check(Schema.isGreaterThan(0))
const NonNegative = Schema.Number.check(Schema.isGreaterThanOrEqualTo(0))
const Latitude = Schema.Number.check(Schema.isBetween({ minimum: -90, maximum: 90 }))
const Longitude = Schema.Number.check(Schema.isBetween({ minimum: -180, maximum: 180 }))
const LocalDate = Schema.String.check(Schema.makeFilter((text: string) => isRealDate(text) || "expected a real date YYYY-MM-DD"))
const nonEmpty = <S extends Schema.Top>(element: S) => Schema.Array(element).check(Schema.isMinLength(1))

const DispatchType = Schema.Literals(["NORMAL", "EXPRESS"])
const DeliveryMode = Schema.Literals(["HOME_DELIVERY", "STORE_WITHDRAWAL"])
const EntityType = Schema.Literals(["CD", "TD", "PRV", "SELLER"])

const ProductAttribute = Schema.Struct({ attribute: Text, attributeValue: Text, attributeCode: Text })

const DispatchItemA = Schema.Struct({
  origin: RequiredText,
  entityType: EntityType,
  skuCode: RequiredText,
  zone: Text,
  dispatchType: DispatchType,
  quantity: Positive,
  destination: Text,
  latitude: Latitude,
  longitude: Longitude,
  deliveryMode: DeliveryMode,
  line: Schema.optional(Text),
  zoneByChannel: Schema.optional(Text),
  measurable: Schema.optional(Text),
  units: Schema.optional(PositiveInt),
  division: Schema.optional(Text),
  province: Schema.optional(Text),
  weight: Schema.optional(NonNegative),
  hasFreightAttributeConfiguration: Schema.optional(Schema.Boolean),
  attributes: Schema.optional(Schema.Array(ProductAttribute)),
  saleChannel: Schema.optional(Text),
  presentationCode: Schema.optional(Text),
  entityCode: Schema.optional(Text),
  groupName: Schema.optional(Text)
})

export const DeliveryRequestA = Schema.Struct({
  purchaseDate: LocalDate,
  items: nonEmpty(DispatchItemA),
  isLastRoute: Schema.optional(Schema.Boolean),
  isPurchaseOrderDeliveryDateRequest: Schema.optional(Schema.Boolean)
})

const CalculationOptions = Schema.Struct({
  calculate: Schema.optionalKey(Schema.Literal("SEARCH_ORIGINS_BY_COORDINATES")),
  rangeStart: Schema.optionalKey(LocalDate),
  rangeEnd: Schema.optionalKey(LocalDate),
  optimization: Schema.optionalKey(Schema.Literal("PROXIMITY_STORE")),
  maxOrigins: Schema.optionalKey(PositiveInt),
  maxItemsPerOrigin: Schema.optionalKey(PositiveInt),
  maxDistancePickingStore: Schema.optionalKey(NonNegative),
  maxPickupPoint: Schema.optionalKey(Schema.NullOr(PositiveInt)),
  validateStock: Schema.optionalKey(Schema.Boolean),
  dispatchCostEnabled: Schema.optionalKey(Schema.Boolean),
  pickupCompanyCode: Schema.optionalKey(Text),
  useExternalPickupCompanyCode: Schema.optionalKey(Schema.Boolean),
  useExternalDeliveryCompanyCode: Schema.optionalKey(Schema.Boolean)
})

const DeliveryData = Schema.Struct({
  latitude: Latitude,
  longitude: Longitude,
  zone: Schema.optionalKey(Text),
  ubigeoCode: Schema.optionalKey(Text),
  destination: Schema.optionalKey(Text)
})

const ItemB = Schema.Struct({
  skuCode: RequiredText,
  origin: Schema.optionalKey(Text),
  companyCode: Schema.optionalKey(Text),
  line: Schema.optionalKey(Text),
  presentationCode: Schema.optionalKey(Text),
  division: Schema.optionalKey(Text),
  measurable: Schema.optionalKey(Text),
  routePriority: Schema.optionalKey(Schema.Int),
  units: Schema.optionalKey(PositiveInt),
  quantity: Positive,
  weight: Schema.optionalKey(NonNegative),
  height: Schema.optionalKey(NonNegative),
  width: Schema.optionalKey(NonNegative),
  length: Schema.optionalKey(NonNegative),
  volume: Schema.optionalKey(NonNegative),
  attributes: Schema.optionalKey(Schema.Array(ProductAttribute))
})

export const DeliveryRequestB = Schema.Struct({
  purchaseDate: LocalDate,
  isLastRoute: Schema.optionalKey(Schema.Boolean),
  dispatchType: Schema.optionalKey(DispatchType),
  dispatchMode: Schema.optionalKey(Schema.Literals(["HOME_DELIVERY", "STORE_WITHDRAWAL", "ALL_DISPATCH_MODES"])),
  saleChannel: RequiredText,
  entitySale: Schema.optionalKey(Text),
  hasFreightAttributeConfiguration: Schema.optionalKey(Schema.Boolean),
  calculationOptions: Schema.optionalKey(CalculationOptions),
  deliveryData: DeliveryData,
  items: nonEmpty(ItemB)
})

export const DeliveryRequest = Schema.Union([DeliveryRequestA, DeliveryRequestB])
