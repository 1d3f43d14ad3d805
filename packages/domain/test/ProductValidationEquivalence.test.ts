import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import fc from "fast-check"
import { sampleProduct } from "@retail/testkit"
import { makeFastDecoder, Product, UnsupportedSchemaError, validateProduct, validateProductWithSchema } from "@retail/domain"

/**
 * `validateProduct` takes a compiled fast path for valid products; Schema alone (`validateProductWithSchema`) is the
 * reference. Every generated input, valid or broken in one place, must get exactly the same answer from both.
 */

type Json = Record<string, unknown>

const decodeWithSchema = Schema.decodeUnknownResult(Product, { errors: "all", onExcessProperty: "ignore" })
const fastDecode = makeFastDecoder(Product)

const code = (max: number) =>
  fc.oneof(
    fc.string({ minLength: 1, maxLength: max }),
    fc.string({ unit: "grapheme", minLength: 1, maxLength: Math.floor(max / 2) }),
    fc.constant("x".repeat(max))
  )
const amount = fc.oneof(fc.double({ min: 0, max: 1e9, noNaN: true }), fc.nat(100000), fc.constant(0), fc.constant(-0))
const pad = (n: number) => String(n).padStart(2, "0")
const dateTime = fc
  .date({ min: new Date("1900-01-01T00:00:00Z"), max: new Date("2999-12-31T23:59:59Z"), noInvalidDate: true })
  .map((d) =>
    `${String(d.getUTCFullYear()).padStart(4, "0")}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
  )
const absentNullOr = <A>(value: fc.Arbitrary<A>) =>
  fc.oneof(fc.constant<{ readonly absent: true }>({ absent: true }), fc.constant(null), value)

const barcode = (productCode: string) =>
  fc.record({ productCode: fc.constant(productCode), eanCode: code(100), indicator: code(1000) })
const hierarchy = fc.record(
  {
    hierarchyCode: code(100),
    hierarchyLevel: fc.oneof(fc.integer({ min: -2147483648, max: 2147483647 }), fc.constantFrom(-2147483648, 2147483647)),
    hierarchyParent: fc.string({ maxLength: 1000 }),
    hierarchyName: fc.string({ maxLength: 1000 }),
    hierarchyDescription: fc.string({ maxLength: 1000 }),
    hierarchyBreadcrumb: fc.option(fc.string({ maxLength: 1000 }))
  },
  { requiredKeys: ["hierarchyCode", "hierarchyLevel"] }
)
const attribute = (productCode: string) =>
  fc.record(
    {
      attributeType: code(1000),
      parentAttributeCode: code(100),
      attributeCode: code(100),
      attributeDescription: code(1000),
      productCode: fc.constant(productCode),
      attributeDescriptionDetail: fc.string({ maxLength: 1000 })
    },
    { requiredKeys: ["attributeType", "parentAttributeCode", "attributeCode", "attributeDescription", "productCode"] }
  )

/** A valid product: `sampleProduct` with every field varied within its rules, children included. */
const validProduct: fc.Arbitrary<Json> = fc
  .tuple(fc.nat(99_999_999), fc.boolean(), code(100))
  .chain(([index, ownCode, randomCode]) => {
    const base: Json = { ...sampleProduct(index) }
    const productCode = ownCode ? String(base["productCode"]) : randomCode
    return fc
      .record({
        skuCode: code(100),
        eanCode: code(100),
        description: code(4000),
        price: amount,
        length: amount,
        width: amount,
        height: amount,
        weight: amount,
        productType: code(100),
        dispatchType: absentNullOr(fc.constantFrom("NORMAL", "EXPRESS", "INTERNATIONAL")),
        unitMeasurement: fc.constantFrom("UN", "KG", "LT", "ML"),
        companyCode: absentNullOr(code(100)),
        taxSale: fc.constantFrom("T", "F"),
        taxSelective: absentNullOr(amount),
        salesTax: absentNullOr(amount),
        dateUpdate: dateTime,
        isEcommerce: fc.constantFrom("T", "F"),
        measurable: fc.constantFrom("T", "F"),
        skuCodePlatform: absentNullOr(code(100)),
        conversionFactor: fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.constant(Number.MAX_SAFE_INTEGER)),
        barcodes: fc.array(barcode(productCode), { maxLength: 3 }),
        hierarchies: fc.array(hierarchy, { minLength: 1, maxLength: 3 }),
        lstAttributes: fc.array(attribute(productCode), { maxLength: 3 }),
        extra: fc.option(fc.jsonValue(), { nil: undefined })
      }, { requiredKeys: [] })
      .map((varied) => {
        const product: Json = { ...base, productCode }
        for (const [key, value] of Object.entries(varied)) {
          if (value === undefined) continue
          if (typeof value === "object" && value !== null && "absent" in value) delete product[key]
          else product[key] = value
        }
        return product
      })
  })

const badValues: ReadonlyArray<unknown> = [
  undefined, null, true, 0, -0, -1, 1.5, NaN, Infinity, -Infinity, 2 ** 31, 2 ** 53, Number.MAX_SAFE_INTEGER + 2,
  "", " ", "X", "x".repeat(101), "x".repeat(1001), "x".repeat(4001), "😀".repeat(51), "😀".repeat(50), "12",
  "NORMAL", "UN", "T", "t", "2026-02-30 10:00:00", "2026-13-01 00:00:00", "2026-11-20T10:15:00", "2026-1-1 00:00:00",
  "2024-02-29 23:59:59", "2026-11-20 24:00:00", "0000-01-01 00:00:00", "0001-01-01 00:00:00", "a\u0000b", "\uD800x",
  "x\uDC00", "\uD83D\uDE00", [], [null], [{}], [1], {}, { productCode: "X" }
]

/** One place in a product: a top-level key, or a key of one child (the path is created when it does not exist). */
const pathIn = (product: Json): fc.Arbitrary<ReadonlyArray<string | number>> => {
  const top = fc.constantFrom(...Object.keys(product), "productCode", "dispatchType", "companyCode", "taxSelective")
  const childKeys = (list: string) => {
    const items = product[list]
    const first = Array.isArray(items) ? items[0] : undefined
    return typeof first === "object" && first !== null && Array.isArray(items)
      ? fc.tuple(fc.constant(list), fc.nat(items.length - 1), fc.constantFrom(...Object.keys(first), "productCode", "hierarchyBreadcrumb"))
      : fc.tuple(fc.constant(list))
  }
  return fc.oneof(top.map((key) => [key]), childKeys("barcodes"), childKeys("hierarchies"), childKeys("lstAttributes"))
}

const cloneJson = (value: Json): Json => structuredClone(value)

/** Sets, deletes or makes inherited the value at `path` of a deep copy of `product`. */
const mutate = (product: Json, path: ReadonlyArray<string | number>, how: "set" | "delete" | "inherit", value: unknown): unknown => {
  const copy = cloneJson(product)
  let target: unknown = copy
  for (const key of path.slice(0, -1)) {
    target = typeof target === "object" && target !== null ? Reflect.get(target, key) : undefined
  }
  const last = path[path.length - 1]
  if (typeof target !== "object" || target === null || last === undefined) return copy
  if (how === "delete") Reflect.deleteProperty(target, last)
  else if (how === "set") Reflect.set(target, last, value)
  else {
    Reflect.deleteProperty(target, last)
    Object.setPrototypeOf(target, { [last]: value })
  }
  return copy
}

const invalidProduct: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, [], [sampleProduct(1)], "product", 42, {}) },
  {
    weight: 20,
    arbitrary: validProduct.chain((product) =>
      fc.tuple(pathIn(product), fc.constantFrom("set" as const, "set" as const, "set" as const, "delete" as const, "inherit" as const), fc.constantFrom(...badValues))
        .map(([path, how, value]) => mutate(product, path, how, value))
    )
  },
  {
    weight: 3,
    arbitrary: validProduct.chain((product) =>
      fc.tuple(fc.constantFrom("barcodes", "lstAttributes"), code(100)).map(([list, other]) => {
        const copy = cloneJson(product)
        const items = copy[list]
        if (Array.isArray(items)) items.push({ ...items[0], eanCode: "E", attributeType: "A", parentAttributeCode: "P", attributeCode: "C", attributeDescription: "D", indicator: "I", productCode: other })
        return copy
      })
    )
  }
)

/** Same Result, same value to the last -0, and the same key order (what gets serialised and persisted). */
const expectSameAnswer = (actual: Result.Result<unknown, unknown>, expected: Result.Result<unknown, unknown>) => {
  expect(actual._tag).toBe(expected._tag)
  if (Result.isSuccess(actual) && Result.isSuccess(expected)) {
    expect(actual.success).toStrictEqual(expected.success)
    expect(JSON.stringify(actual.success)).toBe(JSON.stringify(expected.success))
  }
  if (Result.isFailure(actual) && Result.isFailure(expected)) expect(actual.failure).toStrictEqual(expected.failure)
}

describe("validateProduct (fast path) against validateProductWithSchema (reference)", () => {
  it("compiles the Product schema", () => {
    expect(fastDecode(sampleProduct(7))).toStrictEqual(Result.getOrThrow(decodeWithSchema(sampleProduct(7))))
  })

  it("refuses to compile schemas whose decoded value could differ from the input", () => {
    const compile = <S extends Schema.Top>(schema: S) => () => makeFastDecoder(schema)
    expect(compile(Schema.Struct({ n: Schema.NumberFromString }))).toThrow(UnsupportedSchemaError)
    expect(compile(Schema.Struct({ u: Schema.Union([Schema.Struct({ a: Schema.String }), Schema.Null]) }))).toThrow(UnsupportedSchemaError)
    expect(compile(Schema.Struct({ e: Schema.Struct({}) }))).toThrow(UnsupportedSchemaError)
    expect(compile(Schema.Record(Schema.String, Schema.String))).toThrow(UnsupportedSchemaError)
    expect(compile(Schema.Struct({ o: Schema.Union([Schema.String, Schema.NonEmptyString], { mode: "oneOf" }) }))).toThrow(UnsupportedSchemaError)
  })

  it("gives the same answer for valid products, varied in every field", () => {
    let accepted = 0
    fc.assert(
      fc.property(validProduct, (product) => {
        const expected = validateProductWithSchema(product)
        expectSameAnswer(validateProduct(product), expected)
        if (Result.isSuccess(expected)) accepted++
      }),
      { numRuns: 2500, seed: 20261122 }
    )
    // The generator must mostly produce products the reference accepts, or the fast path is barely exercised.
    expect(accepted).toBeGreaterThan(2000)
  })

  it("gives the same answer and the same reasons for products broken in one place", () => {
    let rejected = 0
    fc.assert(
      fc.property(invalidProduct, (raw) => {
        const expected = validateProductWithSchema(raw)
        expectSameAnswer(validateProduct(raw), expected)
        if (Result.isFailure(expected)) rejected++
      }),
      { numRuns: 4000, seed: 20261123 }
    )
    expect(rejected).toBeGreaterThan(3000)
  })

  it("decodes exactly what Schema decodes and refuses exactly what it refuses", () => {
    fc.assert(
      fc.property(fc.oneof(validProduct, invalidProduct), (raw) => {
        const fast = fastDecode(raw)
        const reference = decodeWithSchema(raw)
        if (Result.isSuccess(reference)) expect(fast).toStrictEqual(reference.success)
        else expect(fast).toBeUndefined()
      }),
      { numRuns: 3000, seed: 20261124 }
    )
  })
})
