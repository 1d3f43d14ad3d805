import { describe, expect, it } from "@effect/vitest"
import { decodeProductBatch, ProductBatchJson } from "@retail/domain"
import { sampleProducts } from "@retail/testkit"
import { Result, Schema } from "effect"

const decodeWithSchema = Schema.decodeUnknownResult(ProductBatchJson)

const entry = (overrides: Record<string, unknown> = {}) =>
  JSON.stringify({ processCode: crypto.randomUUID(), company: "ACME", batchNo: 3, products: sampleProducts(3), ...overrides })

const messageOf = (text: unknown): string =>
  Result.match(decodeProductBatch(text), { onFailure: (error) => error.message, onSuccess: () => "(valid)" })

describe("decodeProductBatch", () => {
  it("decodes a valid entry to what Schema decodes, unknown keys dropped", () => {
    const text = entry({ extra: true })
    const decoded = Result.getOrThrow(decodeProductBatch(text))
    expect(decoded).toStrictEqual(Result.getOrThrow(decodeWithSchema(text)))
    expect(decoded).not.toHaveProperty("extra")
    expect(decoded.products).toHaveLength(3)
  })

  it("refuses what Schema refuses, with Schema's message", () => {
    const cases = [
      entry({ processCode: "not-a-uuid" }),
      entry({ batchNo: 1.5 }),
      entry({ products: [{ ...sampleProducts(1)[0], price: -1 }] }),
      entry({ products: "none" }),
      "{\"processCode\":",
      42
    ]
    for (const text of cases) {
      const expected = Result.match(decodeWithSchema(text), { onFailure: (error) => error.message, onSuccess: () => "(valid)" })
      expect(expected).not.toBe("(valid)")
      expect(messageOf(text)).toBe(expected)
    }
  })
})
