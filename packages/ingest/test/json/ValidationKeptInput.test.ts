import { describe, expect, it } from "@effect/vitest"
import { validateProduct } from "@retail/domain"
import { sampleProduct } from "@retail/testkit"
import { Result } from "effect"
import { validationKeptInput } from "../../src/json/ValidationKeptInput.ts"

const decoded = (raw: unknown) =>
  Result.getOrThrowWith(validateProduct(raw), (failure) => new Error(`sample product refused: ${failure.error}`))

describe("validationKeptInput", () => {
  it("holds for a validated product and the value it was decoded from", () => {
    const raw: unknown = JSON.parse(JSON.stringify(sampleProduct(1)))
    expect(validationKeptInput(raw, decoded(raw))).toBe(true)
  })

  it("fails when validation dropped an undeclared key, at the top or in a child", () => {
    const top: unknown = JSON.parse(JSON.stringify({ ...sampleProduct(1), extra: 1 }))
    expect(validationKeptInput(top, decoded(top))).toBe(false)
    const product = sampleProduct(2)
    const nested: unknown = JSON.parse(JSON.stringify({ ...product, barcodes: [product.barcodes[0], { ...product.barcodes[1], note: "x" }] }))
    expect(validationKeptInput(nested, decoded(nested))).toBe(false)
    const proto: unknown = JSON.parse(`{"__proto__":{},${JSON.stringify(sampleProduct(3)).slice(1)}`)
    expect(validationKeptInput(proto, decoded(proto))).toBe(false)
  })
})
