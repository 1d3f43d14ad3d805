import { describe, expect, it } from "vitest"
import { workAt } from "../src/support/WorkCurve.ts"

const curve = [
  { workMicros: 0, value: 1 },
  { workMicros: 10, value: 0.8 },
  { workMicros: 20, value: 0.6 },
  { workMicros: 40, value: 0.4 }
]

describe("workAt", () => {
  it("interpolates linearly between the two points around the value", () => {
    expect(workAt(curve, 0.5)).toBeCloseTo(30, 9)
    expect(workAt(curve, 0.7)).toBeCloseTo(15, 9)
    expect(workAt(curve, 0.8)).toBeCloseTo(10, 9)
  })

  it("reads the points in order of work, whatever order they come in", () => {
    expect(workAt([...curve].reverse(), 0.5)).toBeCloseTo(30, 9)
  })

  it("takes the first crossing of a curve that wobbles", () => {
    expect(workAt([{ workMicros: 0, value: 1 }, { workMicros: 10, value: 0.4 }, { workMicros: 20, value: 0.6 }, { workMicros: 40, value: 0.3 }], 0.5)).toBeCloseTo(100 / 12, 9)
  })

  it("is undefined outside the curve", () => {
    expect(workAt(curve, 1.2)).toBeUndefined()
    expect(workAt(curve, 0.3)).toBeUndefined()
    expect(workAt([], 0.5)).toBeUndefined()
  })
})
