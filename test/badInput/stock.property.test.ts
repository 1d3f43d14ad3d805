import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { baseUrl, TestServer } from "../support/TestServer.ts"

const KEY = "fuzz-stock-key"
const run = crypto.randomUUID().slice(0, 8)
const NODES = ["CD-LURIN", "CD-CALLAO", "TD-SURCO"] as const

/** Real and unreal values of each field of a change: the fuzzer mixes them. */
const node = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...NODES) },
  fc.constantFrom("", " CD-LURIN", "CD-NOWHERE", "CD-LURIN\u0000", "\ud800", 7, null, ["CD-LURIN"]),
  fc.string({ unit: "grapheme", maxLength: 12 })
)
/** A SKU's end: the batch's prefix goes before it (every batch feeds SKUs of its own). */
const skuEnd = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 8 }) },
  fc.string({ unit: "grapheme", maxLength: 12 }),
  fc.string({ unit: "binary", maxLength: 6 }),
  fc.constantFrom("\u0000", "\udc00", "x".repeat(120), " ", "\n", "\u202e", "🦜")
)
const units = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 1_000_000 }) },
  fc.constantFrom(-1, 0.5, 2 ** 31, "1", null, 1e308, -0, Number.MAX_SAFE_INTEGER)
)
const sequence = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }) },
  fc.constantFrom(-1, 1.5, "2", Number.MAX_SAFE_INTEGER + 1, null, 1e308)
)
const change = fc.record({ node, skuEnd, units }, { requiredKeys: [] })
const batches = fc.record({ sequence, changes: fc.array(change, { maxLength: 30 }) }, { requiredKeys: [] })

/** A 400's message: `path: reason` parts, each path one of the batch's fields. */
const FIELD_PROBLEM = /^(\(root\)|sequence|changes(\[\d+\](\.(node|sku|units))?)?): \S/

const call = (base: string, path: string, init: RequestInit = {}) =>
  fetch(`${base}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    // Never a hang: every answer must come within this.
    signal: AbortSignal.timeout(30_000)
  }).then(async (response) => ({ status: response.status, text: await response.text() }))

describe("POST /v1/stock/changes under random batches", () => {
  layer(TestServer({ CAPACITY_API_KEYS: KEY }), { timeout: 180_000, excludeTestServices: true })((it) => {
    it.effect("never a 5xx, always an answer; a 400 names each bad field; a 200 is what GET /v1/stock/{sku} then answers", () =>
      Effect.gen(function*() {
        const base = yield* baseUrl
        let batchNo = 0
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(batches, async (generated) => {
              const prefix = `F-${run}-${batchNo++}-`
              const changes = (generated.changes ?? []).map(({ skuEnd: end, ...rest }) => end === undefined ? rest : { ...rest, sku: `${prefix}${end}` })
              const body = { ...("sequence" in generated ? { sequence: generated.sequence } : {}), changes }
              const answer = await call(base, "/v1/stock/changes", { method: "POST", body: JSON.stringify(body) })
              expect([200, 400], answer.text).toContain(answer.status)
              if (answer.status === 400) {
                for (const part of (JSON.parse(answer.text) as { message: string }).message.split("; ")) expect(part).toMatch(FIELD_PROBLEM)
                return
              }
              // Of two changes of one node and SKU, the later stands; every row is new (SKUs of this batch).
              const expected = new Map<string, Map<string, number>>()
              for (const row of changes as ReadonlyArray<{ node: string; sku: string; units: number }>) {
                // JSON has no -0: the server reads 0.
                expected.set(row.sku, (expected.get(row.sku) ?? new Map()).set(row.node, row.units + 0))
              }
              const rows = [...expected.values()].reduce((sum, byNode) => sum + byNode.size, 0)
              expect(JSON.parse(answer.text)).toEqual({ sequence: body.sequence, received: changes.length, rows, applied: rows, stale: 0 })
              for (const [sku, byNode] of expected) {
                const held = await call(base, `/v1/stock/${encodeURIComponent(sku)}`)
                expect(held.status, held.text).toBe(200)
                const holders = (JSON.parse(held.text) as { holders: ReadonlyArray<{ node: string; units: number }> }).holders
                expect(Object.fromEntries(holders.map((holder) => [holder.node, holder.units]))).toEqual(Object.fromEntries(byNode))
              }
            }),
            { numRuns: 80, endOnFailure: true }
          )
        )
      }))
  })
})
