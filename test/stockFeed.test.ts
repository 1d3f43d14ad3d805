import { describe, expect, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { SqlClient } from "effect/sql"
import { orderOf, variantAItem } from "./support/CapacityBodies.ts"
import { sequencedFeed } from "./support/Feeds.ts"
import { postJson, request } from "./support/Http.ts"
import { TestServer } from "./support/TestServer.ts"

const KEY = "stock-test-key"
// Runs against a real database keep their rows: every run feeds SKUs of its own.
const run = crypto.randomUUID().slice(0, 8)
const skuOf = (name: string) => `SKU-${run}-${name}`
const DAY_MS = 86_400_000
/** A Monday from 2028 on (the demo network has no holidays after 2027): orders take capacity on days of this run. */
const runMonday = new Date(Date.UTC(2028, 0, 3) + 7 * DAY_MS * Math.floor(Math.random() * 2000)).toISOString().slice(0, 10)

interface Change {
  readonly node: string
  readonly sku: string
  readonly units: number
}

interface Fed {
  readonly sequence: number
  readonly received: number
  readonly rows: number
  readonly applied: number
  readonly stale: number
}

const { post: feed, applied: fed } = sequencedFeed<Fed>("/v1/stock/changes", KEY)

/** The SKU's stock as this server answers with it, by node. */
const held = (sku: string) =>
  Effect.map(request(`/v1/stock/${encodeURIComponent(sku)}`, { token: KEY }), (response) =>
    Object.fromEntries((response.json() as { holders: ReadonlyArray<{ node: string; units: number }> }).holders.map((row) => [row.node, row.units])))

const stored = (sku: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ node: string; units: number; sequence: string }>`SELECT node, units, sequence::text AS sequence FROM capacity_stock WHERE sku = ${sku} ORDER BY node`).pipe(
      Effect.orDie
    )

interface Quoted {
  readonly dispatchCode: string
  readonly route: string | null
  readonly pickingDate: string | null
  readonly deliveryTrace: ReadonlyArray<{
    readonly deliveryDate: string
    readonly details: ReadonlyArray<unknown>
    readonly deliveryWindows: ReadonlyArray<{ readonly deliveryWindow: string; readonly blocked: boolean }>
  }>
  readonly detailedCapacityError: ReadonlyArray<{ readonly code: string; readonly providerDetails: { readonly totalCapacity: number } }>
}

/** A variant A quote of `quantity` units of `sku` from CD Lurín (home delivery, Miraflores), which checks its stock. */
const quote = (sku: string, quantity: number) =>
  Effect.map(
    postJson("/v1/delivery/capacity", { purchaseDate: runMonday, items: [variantAItem({ skuCode: sku, quantity })] }, KEY),
    (response) => {
      expect(response.status, response.text).toBe(200)
      return (response.json() as ReadonlyArray<Quoted>)[0]!
    }
  )


describe("stock fed as batches of changes", () => {
  layer(TestServer({ CAPACITY_API_KEYS: KEY }), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("400 names every bad field (unknown node, negative units, no sequence); the key and media type are checked first", () =>
      Effect.gen(function*() {
        const sku = skuOf("bad")
        const bad = yield* feed(1, [{ node: "CD-NOWHERE", sku, units: 1 }, { node: "CD-LURIN", sku, units: -3 }])
        expect(bad.status).toBe(400)
        expect((bad.json() as { message: string }).message).toBe(
          "changes[0].node: unknown node \"CD-NOWHERE\" (not in the current network); " +
            "changes[1].units: expected an integer between 0 and 2147483647, got -3"
        )
        const noSequence = yield* postJson("/v1/stock/changes", { changes: [{ node: "CD-LURIN", sku, units: 1 }] }, KEY)
        expect(noSequence.status).toBe(400)
        expect(noSequence.text).toContain("sequence: is required")
        expect((yield* postJson("/v1/stock/changes", { sequence: 1, changes: [] }, KEY)).text).toContain("changes: must not be empty")
        expect((yield* request("/v1/stock/changes", { token: KEY, body: "{", headers: { "content-type": "application/json" } })).status).toBe(400)
        expect((yield* postJson("/v1/stock/changes", { sequence: 1, changes: [{ node: "CD-LURIN", sku, units: 1 }] }, "wrong")).status).toBe(401)
        expect((yield* request("/v1/stock/changes", { token: KEY, body: "{}", headers: { "content-type": "text/plain" } })).status).toBe(415)
        // Nothing of a refused batch is stored.
        expect(yield* stored(sku)).toEqual([])
      }))

    it.effect("hostile path parameters (too long, blank, U+0000, a control character, bad percent-encoding) are a 400 naming the parameter, never a 5xx or an empty 404", () =>
      Effect.gen(function*() {
        const answer = (method: string, path: string) =>
          Effect.map(request(path, { token: KEY, method }), (response) => ({ status: response.status, text: response.text }))
        const refused = (parameter: string, reason: string) => ({ status: 400, text: JSON.stringify({ message: `Invalid request: path parameter ${parameter}: ${reason}` }) })
        const long = "x".repeat(101)
        const unstorable = "must not contain U+0000 or an unpaired surrogate"
        const malformed = { status: 400, text: JSON.stringify({ message: "Invalid request: the path is not valid percent-encoded UTF-8" }) }
        const ledger = "?from=2028-01-03&to=2028-01-04"

        expect(yield* answer("GET", `/v1/stock/${long}`)).toEqual(refused("sku", "expected a code of at most 100 characters"))
        expect(yield* answer("GET", `/v1/stock/${"x".repeat(5000)}`)).toEqual(refused("sku", "expected a code of at most 100 characters"))
        expect(yield* answer("GET", `/v1/stock/a%00b`)).toEqual(refused("sku", unstorable))
        expect(yield* answer("GET", `/v1/stock/%0A`)).toEqual(refused("sku", "expected a non-empty code"))
        expect(yield* answer("GET", `/v1/stock/%20${skuOf("padded")}`)).toEqual(refused("sku", "expected a non-empty code"))
        expect(yield* answer("GET", `/v1/stock/%D8%00`)).toEqual(malformed)
        // The longest SKU a batch takes, and a control character it takes, are SKUs here too.
        const longest = `${skuOf("long")}-`.padEnd(100, "y")
        yield* fed(1, [{ node: "CD-LURIN", sku: longest, units: 3 }, { node: "CD-LURIN", sku: skuOf("a\u0001b"), units: 4 }])
        expect(yield* held(longest)).toEqual({ "CD-LURIN": 3 })
        expect(yield* held(skuOf("a\u0001b"))).toEqual({ "CD-LURIN": 4 })
        // The unauthenticated are refused before their parameter is read.
        expect((yield* request(`/v1/stock/${long}`, { token: "wrong" })).status).toBe(401)

        const consumption = "/v1/delivery/capacity/consumptions/"
        expect(yield* answer("DELETE", `${consumption}${long}`)).toEqual(refused("orderId", "must be at most 100 characters"))
        // Was a 500: PostgreSQL refuses U+0000 in a query parameter.
        expect(yield* answer("DELETE", `${consumption}a%00b`)).toEqual(refused("orderId", unstorable))
        expect(yield* answer("DELETE", `${consumption}%ZZ`)).toEqual(malformed)
        expect((yield* answer("DELETE", `${consumption}${"x".repeat(100)}`)).status).toBe(404)

        const nodes = "/v1/delivery/capacity/nodes/"
        expect(yield* answer("GET", `${nodes}%00${ledger}`)).toEqual(refused("code", unstorable))
        expect(yield* answer("GET", `${nodes}%20${ledger}`)).toEqual(refused("code", "expected a non-empty code"))
        // A node's code has no length limit in a network: a long one is an unknown node, not a refused path.
        expect(yield* answer("GET", `${nodes}${long}${ledger}`)).toMatchObject({ status: 404, text: expect.stringContaining("in the current network") })
        expect((yield* answer("GET", `${nodes}CD-LURIN${ledger}`)).status).toBe(200)
      }))

    it.effect("idempotent per sequence number: a replay changes nothing, and an older batch never wins over a newer one", () =>
      Effect.gen(function*() {
        const sku = skuOf("order")
        expect(yield* fed(10, [{ node: "CD-LURIN", sku, units: 5 }, { node: "TD-SURCO", sku, units: 2 }]))
          .toEqual({ sequence: 10, received: 2, rows: 2, applied: 2, stale: 0 })
        expect(yield* fed(10, [{ node: "CD-LURIN", sku, units: 5 }, { node: "TD-SURCO", sku, units: 2 }]))
          .toEqual({ sequence: 10, received: 2, rows: 2, applied: 0, stale: 2 })
        // Late: CD Lurín's row is at sequence 10 already; Miraflores has no row, so the late batch is its newest.
        expect(yield* fed(9, [{ node: "CD-LURIN", sku, units: 50 }, { node: "TD-MIRAFLORES", sku, units: 1 }]))
          .toMatchObject({ applied: 1, stale: 1 })
        expect(yield* held(sku)).toEqual({ "CD-LURIN": 5, "TD-SURCO": 2, "TD-MIRAFLORES": 1 })
        // Of two changes of one row in a batch, the later stands.
        expect(yield* fed(11, [{ node: "CD-LURIN", sku, units: 7 }, { node: "CD-LURIN", sku, units: 0 }]))
          .toEqual({ sequence: 11, received: 2, rows: 1, applied: 1, stale: 0 })
        expect(yield* held(sku)).toEqual({ "CD-LURIN": 0, "TD-SURCO": 2, "TD-MIRAFLORES": 1 })
        expect(yield* stored(sku)).toEqual([
          { node: "CD-LURIN", units: 0, sequence: "11" },
          { node: "TD-MIRAFLORES", units: 1, sequence: "9" },
          { node: "TD-SURCO", units: 2, sequence: "10" }
        ])
      }))

    it.effect("variant A's stock check reads the fed stock: while it shrinks and orders are placed, no quote offers more than was left when it was asked", () =>
      Effect.gen(function*() {
        const sku = skuOf("shrink")
        yield* fed(1, [{ node: "CD-LURIN", sku, units: 20 }])
        expect((yield* quote(sku, 20)).pickingDate).not.toBeNull()
        expect((yield* quote(sku, 21)).detailedCapacityError[0]?.code).toBe("STOCK_ERROR")

        // The stock acknowledged so far: a quote asked after an acknowledgement may see that stock or less, never more.
        let acknowledged = 20
        const shrink = Effect.gen(function*() {
          for (let units = 18, sequence = 2; units >= 0; units -= 2, sequence++) {
            yield* fed(sequence, [{ node: "CD-LURIN", sku, units }])
            acknowledged = units
            yield* Effect.sleep("15 millis")
          }
        })
        const offered: Array<{ readonly quantity: number; readonly left: number }> = []
        let orders = 0
        const quoteAndOrder = Effect.gen(function*() {
          for (let i = 0; i < 60; i++) {
            const quantity = 1 + (i * 7) % 20
            const left = acknowledged
            const answer = yield* quote(sku, quantity)
            if (answer.pickingDate === null) continue
            offered.push({ quantity, left })
            const order = yield* postJson("/v1/delivery/capacity/consumptions", orderOf(answer, `stock-${run}-${i}`, 1), KEY)
            expect([200, 409], order.text).toContain(order.status)
            if (order.status === 200) orders++
          }
        })
        const quoting = yield* Effect.forkChild(quoteAndOrder)
        yield* shrink
        yield* Fiber.join(quoting)
        for (const offer of offered) expect(offer.quantity, JSON.stringify(offer)).toBeLessThanOrEqual(offer.left)
        expect(offered.length).toBeGreaterThan(0)
        expect(orders).toBeGreaterThan(0)
        // All gone: every quote is refused for stock, the answer showing the stock as 0.
        const soldOut = yield* quote(sku, 1)
        expect(soldOut.pickingDate).toBeNull()
        expect(soldOut.detailedCapacityError[0]).toMatchObject({ code: "STOCK_ERROR", providerDetails: { totalCapacity: 0 } })
      }))

    it.effect("PUT /v1/network sets the stock rows its document lists, leaves the others, and the feed's next batch wins over it", () =>
      Effect.gen(function*() {
        const listed = skuOf("listed")
        const other = skuOf("other")
        yield* fed(5, [{ node: "CD-LURIN", sku: listed, units: 5 }, { node: "CD-LURIN", sku: other, units: 6 }])
        const current = yield* request("/v1/network", { token: KEY })
        const document = current.json() as { stock: ReadonlyArray<Change> }
        const put = yield* request("/v1/network", {
          token: KEY,
          method: "PUT",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ ...document, stock: [...document.stock, { node: "CD-LURIN", sku: listed, units: 9 }] })
        })
        expect(put.status, put.text).toBe(200)
        expect(yield* held(listed)).toEqual({ "CD-LURIN": 9 })
        expect(yield* held(other)).toEqual({ "CD-LURIN": 6 })
        expect((yield* quote(listed, 9)).pickingDate).not.toBeNull()
        // The row kept its sequence (5): batch 6 is newer.
        expect(yield* fed(6, [{ node: "CD-LURIN", sku: listed, units: 1 }])).toMatchObject({ applied: 1 })
        expect(yield* held(listed)).toEqual({ "CD-LURIN": 1 })
      }))
  })
})
