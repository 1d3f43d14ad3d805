import { describe, expect, it } from "@effect/vitest"
import { makeFastDecoder } from "@retail/domain"
import { Result, Schema } from "effect"
import fc from "fast-check"
import { DeliveryRequestA, DeliveryRequestB } from "../src/index.ts"

/**
 * decodeDeliveryRequestA/B take a decoder compiled from the request schemas for valid requests and
 * ask Schema only for failures (the messages). Schema alone is the reference: on every generated
 * body, valid or broken in one place, the compiled decoder must accept exactly what Schema accepts
 * and give the same value, keys in the same order (variant B echoes the request).
 */

type Json = Record<string, unknown>

const odd = fc.oneof(
  fc.constant(null),
  fc.constant(undefined),
  fc.constant(""),
  fc.constant(-1),
  fc.constant(0),
  fc.constant(1.5),
  fc.constant(1e9),
  fc.constant("2025-02-30"),
  fc.constant([]),
  fc.constant({}),
  fc.string({ maxLength: 6 }),
  fc.boolean()
)

/** The body with one key (at any depth) removed, or set to an odd value, or an unknown key added. */
const brokenOnce = (body: Json): fc.Arbitrary<Json> => {
  const paths: Array<ReadonlyArray<string | number>> = []
  const collect = (value: unknown, path: ReadonlyArray<string | number>) => {
    if (Array.isArray(value)) value.forEach((v, i) => collect(v, [...path, i]))
    else if (typeof value === "object" && value !== null) {
      for (const [key, v] of Object.entries(value)) {
        paths.push([...path, key])
        collect(v, [...path, key])
      }
    }
  }
  collect(body, [])
  return fc.tuple(fc.constantFrom(...paths), fc.constantFrom("delete", "set", "extra"), odd).map(([path, how, value]) => {
    const copy: Json = structuredClone(body)
    let parent: Record<string | number, unknown> = copy
    for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>
    const last = path[path.length - 1] ?? ""
    if (how === "delete") delete parent[last]
    else if (how === "set") parent[last] = value
    else parent["unknownField"] = value
    return copy
  })
}

const text = fc.string({ maxLength: 8 })
const attribute = fc.record({ attribute: text, attributeValue: text, attributeCode: text })

const itemA = fc.record(
  {
    origin: fc.constantFrom("CD-LURIN", "TD-SURCO", "x"),
    entityType: fc.constantFrom("CD", "TD", "PRV", "SELLER"),
    skuCode: fc.constantFrom("SKU-TV-55-4K", "S"),
    zone: fc.constantFrom("", "LIMA-SUR"),
    dispatchType: fc.constantFrom("NORMAL", "EXPRESS"),
    quantity: fc.oneof(fc.integer({ min: 1, max: 99 }), fc.double({ min: 0.01, max: 9, noNaN: true })),
    destination: fc.constantFrom("150122", "TD-SURCO", ""),
    latitude: fc.double({ min: -90, max: 90, noNaN: true }),
    longitude: fc.double({ min: -180, max: 180, noNaN: true }),
    deliveryMode: fc.constantFrom("HOME_DELIVERY", "STORE_WITHDRAWAL"),
    line: text,
    zoneByChannel: text,
    measurable: text,
    units: fc.integer({ min: 1, max: 50 }),
    division: text,
    province: text,
    weight: fc.double({ min: 0, max: 50, noNaN: true }),
    hasFreightAttributeConfiguration: fc.boolean(),
    attributes: fc.array(attribute, { maxLength: 2 }),
    saleChannel: text,
    presentationCode: text,
    entityCode: text,
    groupName: text,
    route: text
  },
  { requiredKeys: ["origin", "entityType", "skuCode", "zone", "dispatchType", "quantity", "destination", "latitude", "longitude", "deliveryMode"] }
)
const requestA: fc.Arbitrary<Json> = fc.record(
  {
    purchaseDate: fc.constantFrom("2027-03-01", "2024-02-29"),
    items: fc.array(itemA, { minLength: 1, maxLength: 4 }),
    isLastRoute: fc.boolean(),
    isPurchaseOrderDeliveryDateRequest: fc.boolean()
  },
  { requiredKeys: ["purchaseDate", "items"] }
)

const nonNegative = fc.double({ min: 0, max: 100, noNaN: true })
const itemB = fc.record(
  {
    skuCode: fc.constantFrom("SKU-CELULAR-A54", "S"),
    origin: fc.constantFrom("", "CD-LURIN"),
    companyCode: text,
    line: text,
    presentationCode: text,
    division: text,
    measurable: text,
    routePriority: fc.integer({ min: -3, max: 3 }),
    units: fc.integer({ min: 1, max: 9 }),
    quantity: fc.double({ min: 0.01, max: 9, noNaN: true }),
    weight: nonNegative,
    height: nonNegative,
    width: nonNegative,
    length: nonNegative,
    volume: nonNegative,
    attributes: fc.array(attribute, { maxLength: 2 })
  },
  { requiredKeys: ["skuCode", "quantity"] }
)
const requestB: fc.Arbitrary<Json> = fc.record(
  {
    purchaseDate: fc.constantFrom("2027-03-01", "2024-02-29"),
    isLastRoute: fc.boolean(),
    dispatchType: fc.constantFrom("NORMAL", "EXPRESS"),
    dispatchMode: fc.constantFrom("HOME_DELIVERY", "STORE_WITHDRAWAL", "ALL_DISPATCH_MODES"),
    saleChannel: fc.constantFrom("WEB", "APP"),
    entitySale: text,
    hasFreightAttributeConfiguration: fc.boolean(),
    calculationOptions: fc.record(
      {
        calculate: fc.constant("SEARCH_ORIGINS_BY_COORDINATES"),
        rangeStart: fc.constant("2027-03-02"),
        rangeEnd: fc.constant("2027-03-09"),
        optimization: fc.constant("PROXIMITY_STORE"),
        maxOrigins: fc.integer({ min: 1, max: 4 }),
        maxItemsPerOrigin: fc.integer({ min: 1, max: 4 }),
        maxDistancePickingStore: nonNegative,
        maxPickupPoint: fc.oneof(fc.constant(null), fc.integer({ min: 1, max: 4 })),
        validateStock: fc.boolean(),
        dispatchCostEnabled: fc.boolean(),
        pickupCompanyCode: text,
        useExternalPickupCompanyCode: fc.boolean(),
        useExternalDeliveryCompanyCode: fc.boolean()
      },
      { requiredKeys: [] }
    ),
    deliveryData: fc.record(
      {
        latitude: fc.double({ min: -90, max: 90, noNaN: true }),
        longitude: fc.double({ min: -180, max: 180, noNaN: true }),
        zone: text,
        ubigeoCode: fc.constantFrom("150122", "1"),
        destination: text
      },
      { requiredKeys: ["latitude", "longitude"] }
    ),
    items: fc.array(itemB, { minLength: 1, maxLength: 4 })
  },
  { requiredKeys: ["purchaseDate", "saleChannel", "deliveryData", "items"] }
)

const sameAnswer = <S extends Schema.Decoder<unknown>>(schema: S) => {
  const reference = Schema.decodeUnknownResult(schema, { errors: "all" })
  const fast = makeFastDecoder(schema)
  return (input: unknown): boolean => {
    const expected = reference(input)
    const actual = fast(input)
    if (Result.isFailure(expected)) {
      expect(actual).toBeUndefined()
      return false
    }
    expect(actual).toStrictEqual(expected.success)
    expect(JSON.stringify(actual)).toBe(JSON.stringify(expected.success))
    return true
  }
}

describe("compiled request decoders", () => {
  const cases = [
    { name: "variant A", valid: requestA, check: sameAnswer(DeliveryRequestA) },
    { name: "variant B", valid: requestB, check: sameAnswer(DeliveryRequestB) }
  ] as const

  for (const { check, name, valid } of cases) {
    it(`${name}: the same value as Schema for valid bodies, varied in every field`, () => {
      let accepted = 0
      fc.assert(fc.property(valid, (body) => {
        if (check(body)) accepted++
      }), { numRuns: 600, seed: 20261122 })
      expect(accepted).toBe(600)
    })

    it(`${name}: the same accept decision and value as Schema for bodies broken in one place`, () => {
      let rejected = 0
      fc.assert(fc.property(valid.chain(brokenOnce), (body) => {
        if (!check(body)) rejected++
      }), { numRuns: 1500, seed: 20261123 })
      // Many breaks are harmless (an optional key removed, an unknown key added); most must not be.
      expect(rejected).toBeGreaterThan(500)
    })
  }
})
