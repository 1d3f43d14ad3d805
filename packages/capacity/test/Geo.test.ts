import { describe, expect, it } from "vitest"
import { distanceKm } from "../src/index.ts"

describe("great-circle distance", () => {
  it("is zero from a point to itself and the same both ways", () => {
    const miraflores = { latitude: -12.1276, longitude: -77.0297 }
    const callao = { latitude: -12.0432, longitude: -77.112 }
    expect(distanceKm(miraflores, miraflores)).toBe(0)
    expect(distanceKm(miraflores, callao)).toBeCloseTo(distanceKm(callao, miraflores), 9)
  })

  it("measures one degree of the equator and of a meridian as 2πR/360 with the mean Earth radius", () => {
    const oneDegree = (2 * Math.PI * 6371.0088) / 360 // 111.195 km
    expect(distanceKm({ latitude: 0, longitude: 0 }, { latitude: 0, longitude: 1 })).toBeCloseTo(oneDegree, 6)
    expect(distanceKm({ latitude: 10, longitude: -77 }, { latitude: 11, longitude: -77 })).toBeCloseTo(oneDegree, 6)
  })

  it("takes the short way across the antimeridian and gives half the circumference for antipodes", () => {
    expect(distanceKm({ latitude: 0, longitude: 179.5 }, { latitude: 0, longitude: -179.5 })).toBeCloseTo(111.195, 2)
    expect(distanceKm({ latitude: 0, longitude: 0 }, { latitude: 0, longitude: 180 })).toBeCloseTo(Math.PI * 6371.0088, 3)
  })

  it("shrinks a degree of longitude by cos(latitude)", () => {
    const atSixty = distanceKm({ latitude: 60, longitude: 0 }, { latitude: 60, longitude: 1 })
    expect(atSixty).toBeCloseTo(111.195 * Math.cos(Math.PI / 3), 2)
  })

  it("puts Lima's stores at the distances a map shows (Miraflores–Callao CD about 13 km)", () => {
    const km = distanceKm({ latitude: -12.1276, longitude: -77.0297 }, { latitude: -12.0432, longitude: -77.112 })
    expect(km).toBeGreaterThan(12.5)
    expect(km).toBeLessThan(13.5)
  })
})
