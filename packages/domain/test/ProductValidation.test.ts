import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { sampleProduct } from "@retail/testkit"
import { makeLoadValidator, validateProduct } from "@retail/domain"

const valid = () => sampleProduct(1) as Record<string, unknown>
const withField = (field: string, value: unknown) => ({ ...valid(), [field]: value })
const without = (field: string) => {
  const product = valid()
  delete product[field]
  return product
}

const errorOf = (raw: unknown): string =>
  Result.match(validateProduct(raw), {
    onFailure: (failure) => failure.error,
    onSuccess: () => "(valid)"
  })

describe("validateProduct", () => {
  it("accepts a complete product and returns exactly what was sent", () => {
    const product = valid()
    expect(validateProduct(product)).toEqual(Result.succeed(product))
  })

  it("ignores fields the spec does not define", () => {
    const result = validateProduct({ ...valid(), extra: "x" })
    expect(Result.isSuccess(result)).toBe(true)
    expect(Result.getOrThrow(result)).not.toHaveProperty("extra")
  })

  it("refuses a value that is not an object", () => {
    expect(validateProduct([1])).toEqual(Result.fail({ sku: "", error: "skuCode: is required; product must be a JSON object" }))
  })

  const required = [
    "productCode", "skuCode", "eanCode", "description", "price", "length", "width", "height", "weight",
    "productType", "unitMeasurement", "unitedNationsCode", "hierarchyCode", "taxSale", "productPmmStatus",
    "dateUpdate", "isEcommerce", "measurable", "conversionFactor", "barcodes", "hierarchies", "lstAttributes"
  ]
  it.each(required)("%s is required", (field) => {
    expect(errorOf(without(field))).toContain(`${field}: is required`)
  })

  const optional = ["dispatchType", "companyCode", "taxSelective", "salesTax", "skuCodePlatform"]
  it.each(optional)("%s may be absent or null", (field) => {
    expect(errorOf(without(field))).toBe("(valid)")
    expect(errorOf(withField(field, null))).toBe("(valid)")
  })

  it("uses an empty sku and says so when skuCode is missing", () => {
    const result = validateProduct(without("skuCode"))
    expect(result).toEqual(Result.fail({ sku: "", error: "skuCode: is required" }))
  })

  it.each([
    ["productCode", 42, "must be a string"],
    ["productCode", "", "must not be empty"],
    ["productCode", "x".repeat(101), "must be at most 100 characters"],
    ["description", 7, "must be a string"],
    ["description", "d".repeat(4001), "must be at most 4000 characters"],
    ["price", "12.5", "must be a number"],
    ["price", -1, "must not be negative"],
    ["weight", -0.5, "must not be negative"],
    ["length", "long", "must be a number"],
    ["dispatchType", "SLOW", "must be one of NORMAL, EXPRESS, INTERNATIONAL or null"],
    ["unitMeasurement", "BOX", "must be one of UN, KG, LT, ML"],
    ["unitMeasurement", null, "must be one of UN, KG, LT, ML"],
    ["taxSale", "Y", "must be one of T, F"],
    ["isEcommerce", true, "must be one of T, F"],
    ["measurable", "t", "must be one of T, F"],
    ["taxSelective", -3, "must be a non-negative number or null"],
    ["salesTax", "18", "must be a non-negative number or null"],
    ["dateUpdate", "2026-11-20", "must have the shape YYYY-MM-DD HH:mm:ss"],
    ["dateUpdate", "2026-02-30 10:00:00", "must be a real date and time"],
    ["dateUpdate", "2026-11-20 24:00:00", "must be a real date and time"],
    ["conversionFactor", 0, "must be an integer from 1 to"],
    ["conversionFactor", 1.5, "must be an integer"],
    ["barcodes", "none", "must be an array"],
    ["hierarchies", [], "must contain at least one item"],
    ["lstAttributes", {}, "must be an array"]
  ])("%s = %j fails: %s", (field, value, reason) => {
    expect(errorOf(withField(field, value))).toContain(`${field}: ${reason}`)
  })

  it.each([
    ["dispatchType", "INTERNATIONAL"],
    ["unitMeasurement", "ML"],
    ["taxSale", "F"],
    ["description", "d".repeat(300)],
    ["dateUpdate", "2024-02-29 23:59:59"],
    ["conversionFactor", 12],
    ["price", 0]
  ])("%s = %j is valid", (field, value) => {
    expect(errorOf(withField(field, value))).toBe("(valid)")
  })

  it("checks the fields of barcodes, hierarchies and attributes by path", () => {
    const product = valid()
    const raw = {
      ...product,
      barcodes: [{ productCode: product["productCode"], eanCode: 5 }],
      hierarchies: [{ hierarchyCode: "H", hierarchyLevel: 1.5, hierarchyBreadcrumb: 3 }],
      lstAttributes: [{ attributeType: "SPEC" }]
    }
    const error = errorOf(raw)
    expect(error).toContain("barcodes[0].eanCode: must be a string")
    expect(error).toContain("barcodes[0].indicator: is required")
    expect(error).toContain("hierarchies[0].hierarchyLevel: must be an integer")
    expect(error).toContain("hierarchies[0].hierarchyBreadcrumb: must be a string or null")
    expect(error).toContain("lstAttributes[0].attributeCode: is required")
    expect(error).toContain("lstAttributes[0].productCode: is required")
  })

  // Effect 3's words, byte for byte (its default message for a child that is not an object included).
  it("reports what Effect 3 reported for children that are not objects, non-finite numbers and several missing keys", () => {
    const text = (max: number, nonEmpty: boolean) => `{ { string | filter } | filter } & maxLength(${max})${nonEmpty ? " & minLength(1)" : ""}`
    const barcode = `{ readonly productCode: ${text(100, true)}; readonly eanCode: ${text(100, true)}; readonly indicator: ${text(1000, true)} }`
    expect(errorOf(withField("barcodes", [null, 1, "x", [], true]))).toBe(
      [`barcodes[0]: Expected ${barcode}, actual null`, `barcodes[1]: Expected ${barcode}, actual 1`, `barcodes[2]: Expected ${barcode}, actual "x"`,
        `barcodes[3]: Expected ${barcode}, actual []`, `barcodes[4]: Expected ${barcode}, actual true`].join("; ")
    )
    expect(errorOf(withField("hierarchies", [null]))).toBe(
      `hierarchies[0]: Expected { readonly hierarchyCode: ${text(100, true)}; readonly hierarchyLevel: int & between(-2147483648, 2147483647); ` +
        `readonly hierarchyParent?: ${text(1000, false)}; readonly hierarchyName?: ${text(1000, false)}; readonly hierarchyDescription?: ${text(1000, false)}; ` +
        `readonly hierarchyBreadcrumb?: ${text(1000, false)} | null }, actual null`
    )
    expect(errorOf(withField("lstAttributes", [[1, "a", [null]]]))).toBe(
      `lstAttributes[0]: Expected { readonly attributeType: ${text(1000, true)}; readonly parentAttributeCode: ${text(100, true)}; ` +
        `readonly attributeCode: ${text(100, true)}; readonly attributeDescription: ${text(1000, true)}; readonly productCode: ${text(100, true)}; ` +
        `readonly attributeDescriptionDetail?: ${text(1000, false)} }, actual [1,"a",[null]]`
    )
    expect(errorOf({ ...valid(), price: NaN, length: Infinity, weight: -0, width: "1" })).toBe(
      "price: must be a finite number; length: must be a finite number; width: must be a number"
    )
    expect(errorOf(withField("hierarchies", [{}, { hierarchyCode: 1 }]))).toBe(
      "hierarchies[0].hierarchyCode: is required; hierarchies[0].hierarchyLevel: is required; hierarchies[1].hierarchyCode: must be a string; hierarchies[1].hierarchyLevel: is required"
    )
    expect(errorOf(withField("description", "a\u0000".repeat(3000)))).toBe("description: must not contain the NUL character (U+0000)")
  })

  it("requires every barcode and attribute to belong to the product", () => {
    const product = valid()
    const raw = {
      ...product,
      barcodes: [{ productCode: "OTHER", eanCode: "1", indicator: "MAIN" }],
      lstAttributes: [{ attributeType: "T", parentAttributeCode: "P", attributeCode: "A", attributeDescription: "D", productCode: "OTHER" }]
    }
    expect(errorOf(raw)).toBe(
      "barcodes[0].productCode: must equal the product's productCode; lstAttributes[0].productCode: must equal the product's productCode"
    )
  })

  it("reports every failing field of one product in one reason", () => {
    const error = errorOf({ ...valid(), price: -1, hierarchies: [], taxSale: "X" })
    expect(error.split("; ").sort()).toEqual([
      "hierarchies: must contain at least one item",
      "price: must not be negative",
      "taxSale: must be one of T, F"
    ])
  })
})

describe("makeLoadValidator", () => {
  it("lets the first occurrence of a productCode win", () => {
    const validator = makeLoadValidator("ACME")
    const product = sampleProduct(7)
    expect(Result.isSuccess(validator.validate(product, 0))).toBe(true)
    expect(validator.validate({ ...product, skuCode: "SKU-2" }, 3)).toEqual(
      Result.fail({ sku: "SKU-2", error: `productCode: ${product.productCode} already appears at products[0] of this load; the first occurrence wins` })
    )
  })

  it("does not reserve the code of a product that failed", () => {
    const validator = makeLoadValidator("ACME")
    const product = sampleProduct(7)
    expect(Result.isFailure(validator.validate({ ...product, price: -1 }, 0))).toBe(true)
    expect(Result.isSuccess(validator.validate(product, 1))).toBe(true)
  })

  it("fails a product whose companyCode names another company", () => {
    const validator = makeLoadValidator("ACME")
    expect(Result.isSuccess(validator.validate(sampleProduct(1, { company: "ACME" }), 0))).toBe(true)
    expect(validator.validate(sampleProduct(2, { company: "OTHER" }), 1)).toEqual(
      Result.fail({ sku: "SKU-P00000002", error: "companyCode: is OTHER but this load is for company ACME" })
    )
  })
})

describe("text PostgreSQL cannot store", () => {
  it("U+0000, a lone surrogate and the year 0000 fail with a reason; such a SKU is reported with U+FFFD", () => {
    const failed = (overrides: Record<string, unknown>) =>
      Result.match(validateProduct({ ...sampleProduct(1), ...overrides }), { onFailure: (failure) => failure, onSuccess: () => undefined })
    expect(failed({ description: "a\u0000b" })?.error).toBe("description: must not contain the NUL character (U+0000)")
    expect(failed({ productType: "x\ud800" })?.error).toBe("productType: must be well-formed Unicode (no lone surrogate)")
    expect(failed({ dateUpdate: "0000-01-01 00:00:00" })?.error).toBe("dateUpdate: must be a real date and time")
    expect(failed({ skuCode: "S\u0000\udc00" })).toEqual({
      sku: "S\ufffd\ufffd",
      error: "skuCode: must not contain the NUL character (U+0000)"
    })
    expect(failed({ description: "emoji 🚚 and ñ are fine", dateUpdate: "0001-01-01 00:00:00" })).toBeUndefined()
  })
})
