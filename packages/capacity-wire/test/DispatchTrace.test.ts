import { describe, expect, it } from "@effect/vitest"
import { buildSnapshot, type DeliveryOption, demoNetwork, ledgerFromUses } from "@retail/capacity"
import { deliveryWindowsOf, WINDOW_LISTS_PER_ZONE } from "../src/DispatchTrace.ts"
import { isJsonLasting } from "../src/JsonTextReuse.ts"
import { decoded } from "../../capacity/test/fixtures.ts"

describe("deliveryWindowsOf", () => {
  it(`shows each option's windows; one lasting list per zone and pattern, at most ${WINDOW_LISTS_PER_ZONE} a zone`, () => {
    const snapshot = buildSnapshot(decoded(demoNetwork), ledgerFromUses([]))
    const zone = [...snapshot.zones.values()].find((z) => z.windows.length >= 2)
    if (zone === undefined) throw new Error("the demo network has no zone with two windows")
    // Eight slots of the zone's windows (repeated): 256 patterns of blocked ones, more than a zone keeps.
    const models = Array.from({ length: 8 }, (_, i) => zone.windows[i % zone.windows.length]!)
    const optionOf = (mask: number): DeliveryOption => ({
      date: 0,
      windows: models.map((window, i) => ({ window, used: 0, blocked: ((mask >> i) & 1) === 1 }))
    })
    const lists = new Set<object>()
    for (let mask = 0; mask < 256; mask++) {
      const option = optionOf(mask)
      const shown = deliveryWindowsOf(option)
      expect(shown).toEqual(option.windows.map((slot) => ({
        deliveryWindow: slot.window.code,
        deliveryWindowStart: slot.window.start,
        deliveryWindowEnd: slot.window.end,
        blocked: slot.blocked
      })))
      lists.add(shown)
    }
    // The first patterns are kept and shared; the rest are made per option.
    expect(deliveryWindowsOf(optionOf(3))).toBe(deliveryWindowsOf(optionOf(3)))
    expect(isJsonLasting(deliveryWindowsOf(optionOf(3)))).toBe(true)
    expect(deliveryWindowsOf(optionOf(200))).not.toBe(deliveryWindowsOf(optionOf(200)))
    expect(lists.size).toBe(256)
  })

  it("gives a kept list only for the same windows in the same order", () => {
    const snapshot = buildSnapshot(decoded(demoNetwork), ledgerFromUses([]))
    const zone = [...snapshot.zones.values()].find((z) => z.windows.length >= 2)
    const [first, second] = zone?.windows ?? []
    if (first === undefined || second === undefined) throw new Error("the demo network has no zone with two windows")
    const option = (models: ReadonlyArray<typeof first>): DeliveryOption => ({ date: 0, windows: models.map((window) => ({ window, used: 0, blocked: false })) })
    const kept = deliveryWindowsOf(option([first, second]))
    expect(deliveryWindowsOf(option([first, second]))).toBe(kept)
    // The same first window, pattern and length, other windows after it: its own list, its own text.
    const other = deliveryWindowsOf(option([first, first]))
    expect(other).not.toBe(kept)
    expect(other.map((w) => w.deliveryWindow)).toEqual([first.code, first.code])
  })
})
