import { buildSnapshot, decodeNetwork, ledgerFromUses } from "@retail/capacity"
import {
  decodeDeliveryRequestA,
  decodeDeliveryRequestB,
  evaluateVariantA,
  evaluateVariantB
} from "@retail/capacity-wire"
import { createHash } from "node:crypto"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { nationalNetwork, withStock } from "../src/national/NationalNetwork.ts"
import { README_REQUEST_A, README_REQUEST_B } from "../src/national/NationalRequests.ts"

const SMALL = { skus: 400 }

const digest = (value: unknown) => createHash("sha256").update(JSON.stringify(value)).digest("hex")

describe("the national network generator", () => {
  const national = nationalNetwork(SMALL)
  const rows = [...national.stockRows()]
  const decoded = decodeNetwork(withStock(national.network, rows))

  it("has the issue's shape: 10 CDs, 400 stores, 60 zones, 1,900 ubigeos, and stock at the CDs and the stores", () => {
    expect(national.shape).toMatchObject({ cds: 10, stores: 400, zones: 60, ubigeos: 1900, skus: 400 })
    expect(national.shape.hubs).toBeGreaterThan(20)
    expect(national.shape.routes).toBeGreaterThan(1000)
    const holders = new Set(rows.map((row) => row.node))
    for (const node of national.network.nodes) {
      if (node.type === "CD" || node.type === "TD") expect(holders.has(node.code), node.code).toBe(true)
    }
    // A store carries about its share of the catalogue; the main CDs most of it.
    const atStore = rows.filter((row) => row.node === "TD-AREQUIPA-001").length
    expect(atStore).toBe(Math.round(400 * national.options.storeShare))
    expect(rows.filter((row) => row.node === "CD-LURIN" && row.sku.startsWith("SKU-0")).length).toBeGreaterThan(400 * 0.6)
  })

  it("passes the network validation, stock embedded", () => {
    expect(Result.isSuccess(decoded) ? [] : decoded.failure.issues.slice(0, 5)).toEqual([])
  })

  it("is the same for the same seed, row for row, and another for another seed", () => {
    const again = nationalNetwork(SMALL)
    expect(digest(again.network)).toBe(digest(national.network))
    expect(digest([...again.stockRows()])).toBe(digest(rows))
    const other = nationalNetwork({ ...SMALL, seed: 26 })
    expect(digest(other.network)).not.toBe(digest(national.network))
    expect(digest([...other.stockRows()])).not.toBe(digest(rows))
  })

  it("answers the README's example requests (variant A, and variant B with origins searched)", () => {
    if (Result.isFailure(decoded)) throw new Error(decoded.failure.message)
    const snapshot = buildSnapshot(decoded.success, ledgerFromUses([]))
    const now = Date.parse("2027-03-01T08:00:00-05:00")
    const a = Result.getOrThrow(decodeDeliveryRequestA(README_REQUEST_A))
    const resultsA = Result.getOrThrow(evaluateVariantA(snapshot, a, now))
    expect(resultsA.map((r) => [r.route, r.deliveryDates.length > 0])).toEqual([["R-LURIN-SUR-N", true]])
    const b = Result.getOrThrow(decodeDeliveryRequestB(README_REQUEST_B))
    const entries = Result.getOrThrow(evaluateVariantB(snapshot, b, now)).logisticsCapacity
    expect(entries.find((e) => e.dispatchMode === "HOME_DELIVERY")?.origin).toBe("CD-LURIN")
    const pickups = entries.filter((e) => e.dispatchMode === "STORE_WITHDRAWAL")
    expect(pickups.length).toBeGreaterThanOrEqual(2)
    for (const entry of entries) expect(entry.deliveryDates.length, `${entry.origin} ${entry.destination}`).toBeGreaterThan(0)
  })
})
