import { describe, expect, it } from "vitest"
import { differencesFromStored, type OrderContent, orderContentOf, orderDifferences } from "../src/index.ts"

const applied: OrderContent = {
  dispatchCode: "CD1-Z1-NH",
  route: "R1>R2",
  pickingDate: "2028-01-03",
  details: [{ route: "R1", departureDate: "2028-01-04" }, { route: "R2", departureDate: "2028-01-05" }],
  deliveryDate: "2028-01-06",
  deliveryWindow: "AM",
  units: 2
}

describe("orderDifferences", () => {
  it("names every differing field in the order's field order, legs by index, a missing window as none", () => {
    const sent: OrderContent = {
      ...applied,
      details: [applied.details[0]!, { route: "R2", departureDate: "2028-01-06" }],
      deliveryWindow: undefined,
      units: 3
    }
    expect(orderDifferences(applied, sent)).toEqual([
      { field: "details[1].departureDate", applied: "2028-01-05", sent: "2028-01-06" },
      { field: "deliveryWindow", applied: "AM", sent: "none" },
      { field: "units", applied: "2", sent: "3" }
    ])
    expect(orderDifferences(applied, { ...applied, details: applied.details.slice(0, 1) })).toEqual([
      { field: "details", applied: "2 legs", sent: "1 leg" }
    ])
    expect(orderDifferences(applied, { ...applied })).toEqual([])
  })

  it("compares with the stored JSON, and leaves the order id out of the content", () => {
    const content = orderContentOf({ orderId: "O-1", ...applied })
    expect(content).not.toHaveProperty("orderId")
    expect(differencesFromStored(JSON.parse(JSON.stringify(applied)), { ...content, pickingDate: "2028-01-04" })).toEqual([
      { field: "pickingDate", applied: "2028-01-03", sent: "2028-01-04" }
    ])
  })
})
