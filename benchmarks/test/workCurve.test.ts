import { describe, expect, it } from "vitest"
import { workAt } from "../src/support/WorkCurve.ts"

const curve = [
  { workMicros: 0, slowdown: 1 },
  { workMicros: 10, slowdown: 1.25 },
  { workMicros: 20, slowdown: 1.5 },
  { workMicros: 40, slowdown: 2.5 }
]

describe("workAt", () => {
  it("interpolates linearly between the two points whose rise brackets the slowdown", () => {
    expect(workAt(curve, 2)).toBeCloseTo(30, 9)
    expect(workAt(curve, 1.375)).toBeCloseTo(15, 9)
    expect(workAt(curve, 1.25)).toBeCloseTo(10, 9)
  })

  it("reads the points in order of work, whatever order they come in", () => {
    expect(workAt([...curve].reverse(), 2)).toBeCloseTo(30, 9)
  })

  it("takes the first rise that brackets the slowdown on a curve that wobbles", () => {
    const wobbly = [{ workMicros: 0, slowdown: 1 }, { workMicros: 10, slowdown: 2.5 }, { workMicros: 20, slowdown: 1.5 }, { workMicros: 40, slowdown: 3 }]
    expect(workAt(wobbly, 2)).toBeCloseTo(10 / 1.5, 9)
    // A point below the first one (noise) still brackets a slowdown on its way up.
    expect(workAt([{ workMicros: 0, slowdown: 1 }, { workMicros: 10, slowdown: 0.9 }, { workMicros: 20, slowdown: 1.9 }], 0.95)).toBeCloseTo(10.5, 9)
  })

  it("answers the first work of a flat stretch at its level", () => {
    expect(workAt([{ workMicros: 0, slowdown: 1 }, { workMicros: 10, slowdown: 1 }, { workMicros: 20, slowdown: 2 }], 1)).toBe(0)
  })

  it("is undefined where no rise brackets the slowdown", () => {
    expect(workAt(curve, 0.8)).toBeUndefined()
    expect(workAt(curve, 3)).toBeUndefined()
    expect(workAt([], 2)).toBeUndefined()
  })
})
