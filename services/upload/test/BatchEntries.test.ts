import { describe, expect, it } from "@effect/vitest"
import { decodeProductBatch } from "@retail/domain"
import { sampleProducts } from "@retail/testkit"
import { Result } from "effect"
import { entryOfProducts } from "../src/publish/BatchEntries.ts"

const load = { processCode: "7b0c0d7e-1f7a-4b7e-9d4c-2a1b3c4d5e6f", company: "ACME" }
const allocate = (length: number) => new Uint8Array(length)
const decoder = new TextDecoder()

/** Views of each product in a body as a client formats it (separators with spaces and newlines). */
const productsInBody = (products: ReadonlyArray<unknown>) => {
  const texts = products.map((product) => JSON.stringify(product, null, 1))
  const body = Buffer.from(`{"products": [\n ${texts.join(" ,\n ")}\n]}`)
  let from = 0
  return texts.map((text) => {
    const at = body.indexOf(text, from)
    from = at + text.length
    return body.subarray(at, from)
  })
}

describe("entryOfProducts", () => {
  it("is a ProductBatch of the products in order, whether they follow one another in a body, have gaps, or stand alone", () => {
    const products = sampleProducts(12, { prefix: "ENTRY" })
    const views = productsInBody(products)
    const alone = Buffer.from(JSON.stringify(products[11]))
    // 0-3 follow one another; 5 and 7 come after a gap (4 and 6 failed, say); 11 was re-encoded apart.
    const given = [views[0]!, views[1]!, views[2]!, views[3]!, views[5]!, views[7]!, views[8]!, alone, views[9]!]
    const entry = entryOfProducts(load, 3, given, allocate)
    const decoded = decodeProductBatch(decoder.decode(entry))
    expect(Result.isSuccess(decoded) && decoded.success).toMatchObject({ ...load, batchNo: 3 })
    const batch = JSON.parse(decoder.decode(entry)) as { products: ReadonlyArray<unknown> }
    expect(batch.products).toEqual([0, 1, 2, 3, 5, 7, 8, 11, 9].map((i) => products[i]))
  })

  it("copies what follows one another in the body as it came, separators included", () => {
    const views = productsInBody(sampleProducts(3, { prefix: "RUN" }))
    const text = decoder.decode(entryOfProducts(load, 0, views, allocate))
    expect(text).toContain(" ,\n ")
  })
})
