import { describe, expect, it } from "vitest"
import { capacityRequests, variantA, variantBAllModesSearch } from "../src/suite/Capacity.ts"

describe("capacity benchmark request kinds", () => {
  it("every kind's body, at 1, 5 and 20 items, gets the expected answer in-process", () => {
    const kinds = capacityRequests()
    expect(kinds.map((k) => k.label)).toEqual(["variant A", "variant B home delivery, fixed origins", "variant B all modes, origins searched"])
    for (const kind of kinds) {
      for (const items of [1, 5, 20]) {
        expect(kind.wrongAnswer(kind.inProcess(JSON.stringify(kind.body(items))), items), `${kind.label}, ${items}`).toBeUndefined()
      }
    }
  })

  it("an answer refusing the items for stock, an error body or a short answer is not the expected answer", () => {
    const a = variantA()
    const unknownSku = JSON.stringify(a.body(2)).replaceAll("SKU-", "SKU-NOT-STOCKED-")
    expect(a.wrongAnswer(a.inProcess(unknownSku), 2)).toContain("capacity error")
    expect(a.wrongAnswer(a.inProcess(JSON.stringify(a.body(2))), 3)).toContain("2 results for 3 items")
    const b = variantBAllModesSearch()
    expect(b.wrongAnswer(JSON.stringify({ code: "INVALID_REQUEST", message: "items[0].quantity: must be greater than 0", details: {} }), 1)).toContain("not the response schema")
    const soldOut = JSON.stringify(b.body(1)).replace("\"quantity\":1", "\"quantity\":100000")
    expect(b.wrongAnswer(b.inProcess(soldOut), 1)).toBeDefined()
  })
})
