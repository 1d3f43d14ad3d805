import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { isRealDateTime } from "@retail/domain"

/** The check as it was first written, with the pattern's captures and Date: the reference the fast one must agree with. */
const reference = (value: string): boolean => {
  const match = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(value)
  if (match === null) return false
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = match.slice(1).map(Number)
  if (year < 1 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return false
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate()
}

describe("isRealDateTime", () => {
  it("accepts exactly the YYYY-MM-DD HH:mm:ss texts that exist, as the pattern and Date said", () => {
    const pad = (n: number, width: number) => String(n).padStart(width, "0")
    const dateText = fc.oneof(
      fc.tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }), fc.integer({ min: 0, max: 24 }), fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 60 }))
        .map(([y, mo, d, h, mi, sec]) => `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)} ${pad(h, 2)}:${pad(mi, 2)}:${pad(sec, 2)}`),
      fc.string({ unit: "binary", maxLength: 21 }),
      fc.constantFrom(
        "1900-02-29 00:00:00", "2000-02-29 00:00:00", "0004-02-29 00:00:00", "0100-02-29 00:00:00", "0000-01-01 00:00:00",
        "2023-02-29 12:00:00", "2024-04-31 00:00:00", "2024-12-31 23:59:59", "2024-1-01 00:00:00", "2024-01-01 00:00:0a",
        "2024-01-01 00:00:00 ", "2024-01-01T00:00:00", "2024-01-01 00:00:00\n", "２024-01-01 00:00:00", "2024-01-01 00:00:00".replace(" ", "\u00a0")
      )
    )
    let real = 0
    fc.assert(
      fc.property(dateText, (text) => {
        const expected = reference(text)
        expect(isRealDateTime(text), text).toBe(expected)
        if (expected) real++
      }),
      { numRuns: 20_000 }
    )
    expect(real).toBeGreaterThan(2000)
  })
})
