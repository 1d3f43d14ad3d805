import { Schema } from "effect"
import {
  Amount,
  DateTimeText,
  Description,
  Integer,
  nullable,
  nullableOneOf,
  oneOf,
  OptionalText,
  PositiveInteger,
  RequiredCode,
  RequiredText,
  TrueFalse
} from "./Fields.ts"

export const DispatchTypes = ["NORMAL", "EXPRESS", "INTERNATIONAL"] as const
export const UnitMeasurements = ["UN", "KG", "LT", "ML"] as const

export const Barcode = Schema.Struct({
  productCode: RequiredCode,
  eanCode: RequiredCode,
  indicator: RequiredText
})
export type Barcode = typeof Barcode.Type

export const Hierarchy = Schema.Struct({
  hierarchyCode: RequiredCode,
  hierarchyLevel: Integer,
  hierarchyParent: Schema.optionalKey(OptionalText),
  hierarchyName: Schema.optionalKey(OptionalText),
  hierarchyDescription: Schema.optionalKey(OptionalText),
  hierarchyBreadcrumb: Schema.optionalKey(nullable(OptionalText, "a string"))
})
export type Hierarchy = typeof Hierarchy.Type

export const Attribute = Schema.Struct({
  attributeType: RequiredText,
  parentAttributeCode: RequiredCode,
  attributeCode: RequiredCode,
  attributeDescription: RequiredText,
  productCode: RequiredCode,
  attributeDescriptionDetail: Schema.optionalKey(OptionalText)
})
export type Attribute = typeof Attribute.Type

const list = <S extends Schema.Top>(item: S) => Schema.Array(item).annotate({ message: "must be an array" })

/** One product as the spec's Product table defines it; the decoded value is exactly what was sent. */
export const Product = Schema.Struct({
  productCode: RequiredCode,
  skuCode: RequiredCode,
  eanCode: RequiredCode,
  description: Description,
  price: Amount,
  length: Amount,
  width: Amount,
  height: Amount,
  weight: Amount,
  productType: RequiredCode,
  dispatchType: Schema.optionalKey(nullableOneOf(...DispatchTypes)),
  unitMeasurement: oneOf(...UnitMeasurements),
  unitedNationsCode: RequiredCode,
  hierarchyCode: RequiredCode,
  companyCode: Schema.optionalKey(nullable(RequiredCode, "a non-empty string")),
  taxSale: TrueFalse,
  taxSelective: Schema.optionalKey(nullable(Amount, "a non-negative number")),
  salesTax: Schema.optionalKey(nullable(Amount, "a non-negative number")),
  productPmmStatus: RequiredCode,
  dateUpdate: DateTimeText,
  isEcommerce: TrueFalse,
  measurable: TrueFalse,
  skuCodePlatform: Schema.optionalKey(nullable(RequiredCode, "a non-empty string")),
  conversionFactor: PositiveInteger,
  barcodes: list(Barcode),
  hierarchies: list(Hierarchy).check(Schema.isMinLength(1, { title: "minItems(1)", message: "must contain at least one item" })),
  lstAttributes: list(Attribute)
})
export type Product = typeof Product.Type
