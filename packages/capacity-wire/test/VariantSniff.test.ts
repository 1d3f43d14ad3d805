import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { readsAsVariantB, variantOf } from "../src/VariantSniff.ts"

describe("telling the variants apart", () => {
  it("B by saleChannel or deliveryData, A by items with origin or deliveryMode, else neither", () => {
    const variantA = { purchaseDate: "2027-03-01", items: [{ origin: "CD-LURIN", deliveryMode: "HOME_DELIVERY" }] }
    expect(variantOf({ purchaseDate: "2027-03-01", saleChannel: "WEB", deliveryData: {}, items: [] })).toBe("B")
    expect(variantOf({ saleChannel: "WEB" })).toBe("B")
    expect(variantOf({ deliveryData: {} })).toBe("B")
    expect(variantOf({ ...variantA, saleChannel: "WEB" })).toBe("B")
    expect(variantOf(variantA)).toBe("A")
    expect(variantOf({ items: [{ skuCode: "X" }, { deliveryMode: "HOME_DELIVERY" }] })).toBe("A")
    expect(variantOf({ purchaseDate: "2027-03-01", items: [] })).toBe("A")
    expect(variantOf({ items: [{ skuCode: "X" }] })).toBe("NEITHER")
    expect(variantOf([variantA])).toBe("NEITHER")
    expect(variantOf(null)).toBe("NEITHER")
  })
})

describe("reading the variant of a body without parsing it", () => {
  it("agrees with variantOf on every well-formed body", () => {
    const key = fc.constantFrom("saleChannel", "deliveryData", "items", "purchaseDate", "sale\\u0043hannel", "x\"y", "")
    const body = fc.oneof(
      fc.jsonValue(),
      fc.dictionary(key, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }),
      fc.array(fc.dictionary(key, fc.jsonValue({ maxDepth: 2 })), { maxLength: 2 })
    )
    fc.assert(fc.property(body, fc.constantFrom(0, 2), (value, indent) => {
      const text = JSON.stringify(value, null, indent).replaceAll("sale\\\\u0043hannel", "sale\\u0043hannel")
      expect(readsAsVariantB(text)).toBe(variantOf(JSON.parse(text)) === "B")
    }), { numRuns: 2000 })
  })

  it("reads a body cut short or broken as far as it goes", () => {
    expect(readsAsVariantB(`{"purchaseDate":"2027-03-01","saleChannel":`)).toBe(true)
    expect(readsAsVariantB(` {"items":[{"a":"}"}],"deliveryData":{`)).toBe(true)
    expect(readsAsVariantB(`{"items":[{"saleChannel":"WEB"}]`)).toBe(false)
    expect(readsAsVariantB(`{"purchaseDate":"2027-03-01",`)).toBe(false)
    expect(readsAsVariantB(`{"note":"saleChannel"}`)).toBe(false)
    expect(readsAsVariantB(`not json saleChannel`)).toBe(false)
    expect(readsAsVariantB("")).toBe(false)
  })
})
