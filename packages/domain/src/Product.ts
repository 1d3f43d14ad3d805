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
  hierarchyParent: Schema.optionalWith(OptionalText, { exact: true }),
  hierarchyName: Schema.optionalWith(OptionalText, { exact: true }),
  hierarchyDescription: Schema.optionalWith(OptionalText, { exact: true }),
  hierarchyBreadcrumb: Schema.optionalWith(nullable(OptionalText, "a string"), { exact: true })
})
export type Hierarchy = typeof Hierarchy.Type

export const Attribute = Schema.Struct({
  attributeType: RequiredText,
  parentAttributeCode: RequiredCode,
  attributeCode: RequiredCode,
  attributeDescription: RequiredText,
  productCode: RequiredCode,
  attributeDescriptionDetail: Schema.optionalWith(OptionalText, { exact: true })
})
export type Attribute = typeof Attribute.Type

const list = <A, I>(item: Schema.Schema<A, I>) =>
  Schema.Array(item).annotations({ message: () => "must be an array" })

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
  dispatchType: Schema.optionalWith(nullableOneOf(...DispatchTypes), { exact: true }),
  unitMeasurement: oneOf(...UnitMeasurements),
  unitedNationsCode: RequiredCode,
  hierarchyCode: RequiredCode,
  companyCode: Schema.optionalWith(nullable(RequiredCode, "a non-empty string"), { exact: true }),
  taxSale: TrueFalse,
  taxSelective: Schema.optionalWith(nullable(Amount, "a non-negative number"), { exact: true }),
  salesTax: Schema.optionalWith(nullable(Amount, "a non-negative number"), { exact: true }),
  productPmmStatus: RequiredCode,
  dateUpdate: DateTimeText,
  isEcommerce: TrueFalse,
  measurable: TrueFalse,
  skuCodePlatform: Schema.optionalWith(nullable(RequiredCode, "a non-empty string"), { exact: true }),
  conversionFactor: PositiveInteger,
  barcodes: list(Barcode),
  hierarchies: list(Hierarchy).pipe(Schema.minItems(1, { message: () => "must contain at least one item" })),
  lstAttributes: list(Attribute)
})
export type Product = typeof Product.Type
