import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { orderOf, variantAItem } from "./support/CapacityBodies.ts"
import { postJson, request } from "./support/Http.ts"
import { TestServer } from "./support/TestServer.ts"

const KEY = "test-capacity-key"
const auth = { authorization: `Bearer ${KEY}` }

const item = (overrides: Record<string, unknown> = {}) =>
  variantAItem({ weight: 2, line: "TV", division: "ELECTRO", measurable: "UN", ...overrides })

interface Result {
  readonly dispatchCode: string
  readonly route: string
  readonly pickingDate: string
  readonly deliveryDates: ReadonlyArray<string>
  readonly deliveryTrace: ReadonlyArray<{ readonly details: ReadonlyArray<unknown>; readonly deliveryWindows: ReadonlyArray<unknown> }>
  readonly arriveDates: ReadonlyArray<{ readonly node: string; readonly code: number }>
  readonly message: string
  readonly deliveryCost: number
}

const capacity = (body: unknown, key: string = KEY) => postJson("/v1/delivery/capacity", body, key)

const send = (method: string, path: string, body?: unknown) =>
  request(path, {
    method,
    headers: { ...auth, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })

// Runs against a real database keep their rows: every run takes capacity on its own days and order ids.
const run = crypto.randomUUID().slice(0, 8)
const DAY_MS = 86_400_000
/** A Monday from 2028 on (the demo network has no holidays after 2027). */
const runMonday = new Date(Date.UTC(2028, 0, 3) + 7 * DAY_MS * Math.floor(Math.random() * 2000)).toISOString().slice(0, 10)
const dayAfter = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10)

interface Answer {
  readonly dispatchCode: string
  readonly route: string | null
  readonly pickingDate: string
  readonly deliveryTrace: ReadonlyArray<{
    readonly deliveryDate: string
    readonly details: ReadonlyArray<unknown>
    readonly deliveryWindows: ReadonlyArray<{ readonly deliveryWindow: string; readonly blocked: boolean }>
  }>
}


/** Pickup at the store itself: the order takes only the store's picking (one shared pool). */
const pickupAt = (store: string) =>
  item({ origin: store, entityType: "TD", skuCode: "SKU-CELULAR-A54", deliveryMode: "STORE_WITHDRAWAL", destination: store })

describe("delivery capacity", () => {
  layer(TestServer({ CAPACITY_API_KEYS: `other-key, ${KEY}` }), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("200: variant A answer on the demo network with its fields filled", () =>
      Effect.gen(function*() {
        // Monday 1 March 2027: CD Lurín picks that day, R-LURIN-SUR-N reaches Lima Moderna the next day.
        const response = yield* capacity({ purchaseDate: "2027-03-01", items: [item()] })
        expect(response.status).toBe(200)
        expect(response.headers.get("content-type")).toContain("application/json")
        const [result] = response.json() as ReadonlyArray<Result>
        expect(result).toMatchObject({
          skuCode: "SKU-TV-55-4K",
          line: "TV",
          dispatchCode: "CD-LURIN-LIMA-MODERNA-NH",
          origin: "CD-LURIN",
          zone: "LIMA-MODERNA",
          route: "R-LURIN-SUR-N",
          pickingDate: "2027-03-01",
          message: "OK",
          division: "ELECTRO",
          measurable: "UN",
          detailedCapacityError: []
        })
        expect(result!.deliveryCost).toBeGreaterThan(0)
        expect(result!.deliveryDates).toHaveLength(5)
        expect(result!.deliveryDates[0]).toBe("2027-03-02")
        expect(result!.deliveryTrace).toHaveLength(5)
        expect(result!.deliveryTrace[0]!.details).toHaveLength(1)
        expect(result!.deliveryTrace[0]!.deliveryWindows.length).toBeGreaterThan(0)
        expect(result!.arriveDates.map((arrive) => [arrive.node, arrive.code])).toEqual([["CD-LURIN", 0], ["LIMA-MODERNA", 0]])
      }))

    it.effect("401: missing or unknown API key, on the hot path and on administration", () =>
      Effect.gen(function*() {
        const body = { purchaseDate: "2027-03-01", items: [item()] }
        expect((yield* postJson("/v1/delivery/capacity", body)).status).toBe(401)
        expect((yield* capacity(body, "not-a-key")).status).toBe(401)
        expect((yield* capacity(body, "other-key")).status).toBe(200)
        expect((yield* request("/v1/network")).status).toBe(401)
        expect((yield* request("/v1/network", { token: "not-a-key" })).status).toBe(401)
      }))

    it.effect("400: a plain string naming the field and the problem", () =>
      Effect.gen(function*() {
        const badDate = yield* capacity({ purchaseDate: "2026-02-30", items: [item()] })
        expect(badDate.status).toBe(400)
        expect(badDate.headers.get("content-type")).toContain("text/plain")
        expect(badDate.text).toContain("purchaseDate")
        const empty = yield* capacity({ purchaseDate: "2027-03-01", items: [] })
        expect(empty.status).toBe(400)
        expect(empty.text).toContain("items")
        const badType = yield* capacity({ purchaseDate: "2027-03-01", items: [item(), item({ dispatchType: "SLOW" })] })
        expect(badType.status).toBe(400)
        expect(badType.text).toContain("items[1].dispatchType")
        const notJson = yield* request("/v1/delivery/capacity", { token: KEY, body: "{", headers: { "content-type": "application/json" } })
        expect(notJson.status).toBe(400)
      }))

    it.effect("404: a plain string when no dispatch has a route", () =>
      Effect.gen(function*() {
        const response = yield* capacity({ purchaseDate: "2027-03-01", items: [item({ origin: "CD-NOWHERE" })] })
        expect(response.status).toBe(404)
        expect(response.headers.get("content-type")).toContain("text/plain")
        expect(response.text.length).toBeGreaterThan(0)
      }))

    it.effect("PUT /v1/network: a bad reference is 400 naming its path; a valid one replaces the network", () =>
      Effect.gen(function*() {
        const current = yield* send("GET", "/v1/network")
        expect(current.status).toBe(200)
        const document = current.json() as { routes: Array<{ source: string }> }
        const broken = { ...document, routes: document.routes.map((route, i) => (i === 3 ? { ...route, source: "NOPE" } : route)) }
        const rejected = yield* send("PUT", "/v1/network", broken)
        expect(rejected.status).toBe(400)
        expect(rejected.text).toContain("routes[3].source")
        const accepted = yield* send("PUT", "/v1/network", document)
        expect(accepted.status).toBe(200)
        expect((accepted.json() as { version: number }).version).toBeGreaterThan(1)
        expect((yield* capacity({ purchaseDate: "2027-03-01", items: [item()] })).status).toBe(200)
      }))

    it.effect("415: a body not sent as application/json, on the hot path", () =>
      Effect.gen(function*() {
        const body = JSON.stringify({ purchaseDate: "2027-03-01", items: [item()] })
        const asText = yield* request("/v1/delivery/capacity", { token: KEY, body, headers: { "content-type": "text/plain" } })
        expect(asText.status).toBe(415)
        expect(asText.headers.get("content-type")).toContain("text/plain")
        expect(asText.text).toContain("application/json")
        const latin = yield* request("/v1/delivery/capacity", { token: KEY, body, headers: { "content-type": "application/json; charset=latin1" } })
        expect(latin.status).toBe(415)
        const utf8 = yield* request("/v1/delivery/capacity", { token: KEY, body, headers: { "content-type": "Application/JSON; charset=UTF-8" } })
        expect(utf8.status).toBe(200)
      }))

    it.effect("consumptions: concurrent orders for a store's last units; exactly as many succeed as fit", () =>
      Effect.gen(function*() {
        // Stores pick 120 units a day (one shared pool); pickup at the store takes nothing else.
        const store = "TD-MIRAFLORES"
        const offered = yield* capacity({ purchaseDate: runMonday, items: [pickupAt(store)] })
        expect(offered.status).toBe(200)
        const [answer] = offered.json() as ReadonlyArray<Answer>
        expect(answer).toMatchObject({ dispatchCode: `${store}-${store}-NS`, route: null, pickingDate: runMonday })
        const date = answer!.pickingDate

        const fill = yield* send("POST", "/v1/delivery/capacity/consumptions", orderOf(answer!, `fill-${run}`, 117))
        expect(fill.status).toBe(200)
        expect(fill.json()).toEqual({ orderId: `fill-${run}`, status: "APPLIED" })

        const attempts = yield* Effect.forEach(
          Array.from({ length: 12 }, (_, i) => i),
          (i) => send("POST", "/v1/delivery/capacity/consumptions", orderOf(answer!, `last-${run}-${i}`, 1)),
          { concurrency: "unbounded" }
        )
        const statuses = attempts.map((attempt) => attempt.status)
        expect(statuses.filter((status) => status === 200)).toHaveLength(3)
        expect(statuses.filter((status) => status === 409)).toHaveLength(9)

        const ledger = yield* send("GET", `/v1/delivery/capacity/nodes/${store}?from=${date}&to=${date}`)
        expect(ledger.status).toBe(200)
        const view = ledger.json() as { usage: ReadonlyArray<{ kind: string; used: number }>; orders: ReadonlyArray<unknown> }
        expect(view.usage).toEqual([{ kind: "PICKING", pool: "ALL", date, used: 120 }])
        expect(view.orders).toHaveLength(4)

        // The store is full that day: the next answer picks the day after.
        const [next] = (yield* capacity({ purchaseDate: runMonday, items: [pickupAt(store)] })).json() as ReadonlyArray<Answer>
        expect(next!.pickingDate).toBe(dayAfter(runMonday))

        // Idempotent by order id: applying the fill again takes nothing more.
        const replay = yield* send("POST", "/v1/delivery/capacity/consumptions", orderOf(answer!, `fill-${run}`, 117))
        expect(replay.json()).toEqual({ orderId: `fill-${run}`, status: "ALREADY_APPLIED" })

        const released = yield* send("DELETE", `/v1/delivery/capacity/consumptions/fill-${run}`)
        expect(released.status).toBe(200)
        expect((yield* send("DELETE", `/v1/delivery/capacity/consumptions/fill-${run}`)).status).toBe(404)
        const after = (yield* send("GET", `/v1/delivery/capacity/nodes/${store}?from=${date}&to=${date}`)).json() as {
          usage: ReadonlyArray<{ used: number }>
        }
        expect(after.usage[0]!.used).toBe(3)
        const [again] = (yield* capacity({ purchaseDate: runMonday, items: [pickupAt(store)] })).json() as ReadonlyArray<Answer>
        expect(again!.pickingDate).toBe(runMonday)
      }))

    it.effect("consumptions: concurrent orders and releases over shared legs all apply, and the ledger adds up", () =>
      Effect.gen(function*() {
        // Both CDs reach Lima Este through the hub: their orders share its departure, its dispatch pool and the zone's window.
        const weekLater = new Date(Date.parse(`${runMonday}T00:00:00Z`) + 7 * DAY_MS).toISOString().slice(0, 10)
        const answers = yield* Effect.forEach(["CD-LURIN", "CD-CALLAO"], (origin) =>
          Effect.map(capacity({ purchaseDate: weekLater, items: [item({ origin, destination: "150103" })] }), (offered) => {
            expect(offered.status).toBe(200)
            const [answer] = offered.json() as ReadonlyArray<Answer>
            expect(answer!.route).toContain("R-HUB-ESTE")
            return answer!
          }))
        const orderFor = (i: number) => orderOf(answers[i % 2]!, `shared-${run}-${i}`, 1)
        const first = yield* Effect.forEach(Array.from({ length: 10 }, (_, i) => i), (i) =>
          send("POST", "/v1/delivery/capacity/consumptions", orderFor(i)), { concurrency: "unbounded" })
        expect(first.map((answer) => answer.status)).toEqual(Array(10).fill(200))

        // Ten more orders while the first five are given back, all at once.
        const mixed = yield* Effect.all([
          Effect.forEach(Array.from({ length: 10 }, (_, i) => i + 10), (i) =>
            send("POST", "/v1/delivery/capacity/consumptions", orderFor(i)), { concurrency: "unbounded" }),
          Effect.forEach(Array.from({ length: 5 }, (_, i) => i), (i) =>
            send("DELETE", `/v1/delivery/capacity/consumptions/shared-${run}-${i}`), { concurrency: "unbounded" })
        ], { concurrency: "unbounded" })
        expect(mixed.flat().map((answer) => answer.status)).toEqual(Array(15).fill(200))

        const until = new Date(Date.parse(`${weekLater}T00:00:00Z`) + 6 * DAY_MS).toISOString().slice(0, 10)
        const hub = (yield* send("GET", `/v1/delivery/capacity/nodes/HUB-SANTA-ANITA?from=${weekLater}&to=${until}`)).json() as {
          usage: ReadonlyArray<{ kind: string; used: number }>
          orders: ReadonlyArray<{ orderId: string }>
        }
        const held = new Set(hub.orders.map((order) => order.orderId).filter((id) => id.startsWith(`shared-${run}-`)))
        expect(held.size).toBe(15)
        expect(hub.usage.filter((row) => row.kind === "NODE_DISPATCH").reduce((sum, row) => sum + row.used, 0)).toBe(15)
      }))

    it.effect("consumptions: a home delivery order takes picking, each leg's departure and one delivery in its window", () =>
      Effect.gen(function*() {
        const offered = yield* capacity({
          purchaseDate: runMonday,
          items: [item({ origin: "SELLER-TECNO-LINCE", entityType: "SELLER", skuCode: "SKU-MOUSE-GAMER" })]
        })
        expect(offered.status).toBe(200)
        const [answer] = offered.json() as ReadonlyArray<Answer>
        expect(answer!.route!.split(">").length).toBeGreaterThan(1)
        const order = orderOf(answer!, `home-${run}`, 5)
        const placed = yield* send("POST", "/v1/delivery/capacity/consumptions", order)
        expect(placed.status).toBe(200)
        const ledger = (yield* send("GET", `/v1/delivery/capacity/nodes/SELLER-TECNO-LINCE?from=${runMonday}&to=${dayAfter(dayAfter(runMonday))}`))
          .json() as { usage: ReadonlyArray<{ kind: string; date: string; used: number }> }
        expect(ledger.usage).toContainEqual({ kind: "PICKING", pool: "ALL", date: answer!.pickingDate, used: 5 })
        expect(ledger.usage.filter((row) => row.kind === "NODE_DISPATCH").map((row) => row.used)).toEqual([5])
        // The next answer on that day counts the order against the first leg's departure.
        const [next] = (yield* capacity({
          purchaseDate: runMonday,
          items: [item({ origin: "SELLER-TECNO-LINCE", entityType: "SELLER", skuCode: "SKU-MOUSE-GAMER" })]
        })).json() as ReadonlyArray<{ deliveryTrace: ReadonlyArray<{ details: ReadonlyArray<{ usedDispatchCapacity: number }> }> }>
        expect(next!.deliveryTrace[0]!.details[0]!.usedDispatchCapacity).toBe(5)
      }))

    it.effect("consumptions: an orderId sent again with other content is 409 naming what differs; an exact repeat is ALREADY_APPLIED", () =>
      Effect.gen(function*() {
        const [answer] = (yield* capacity({ purchaseDate: runMonday, items: [item()] })).json() as ReadonlyArray<Answer>
        const orderId = `again-${run}`
        const order = orderOf(answer!, orderId, 2)
        const consume = (body: unknown) => send("POST", "/v1/delivery/capacity/consumptions", body)
        expect((yield* consume(order)).json()).toEqual({ orderId, status: "APPLIED" })
        // The legs as the trace returned them, with fields the order does not read: still the same order.
        expect((yield* consume({ ...order, details: order.details.map((leg) => ({ ...(leg as object), note: "x" })) })).json())
          .toEqual({ orderId, status: "ALREADY_APPLIED" })

        const conflict = yield* consume({ ...order, units: 3 })
        expect({ status: conflict.status, body: conflict.json() }).toEqual({
          status: 409,
          body: {
            orderId,
            fields: ["units"],
            message: `order ${orderId} was already applied with other content (units: 2 applied, 3 sent); ` +
              "the applied order stands and nothing was taken: release it first, or use another orderId"
          }
        })
        const otherWindow = answer!.deliveryTrace[0]!.deliveryWindows.find((w) => w.deliveryWindow !== order.deliveryWindow)
        const cases = [
          [{ ...order, deliveryDate: dayAfter(order.deliveryDate) }, ["deliveryDate"]],
          [{ ...order, pickingDate: dayAfter(order.pickingDate!), units: 1 }, ["pickingDate", "units"]],
          [{ ...order, deliveryWindow: otherWindow!.deliveryWindow }, ["deliveryWindow"]]
        ] as const
        for (const [body, fields] of cases) {
          const response = yield* consume(body)
          expect({ status: response.status, fields: (response.json() as { fields: unknown }).fields }).toEqual({ status: 409, fields })
        }

        const held = (yield* send("GET", `/v1/delivery/capacity/nodes/CD-LURIN?from=${order.pickingDate}&to=${order.pickingDate}`)).json() as {
          orders: ReadonlyArray<{ orderId: string; kind: string; units: number }>
        }
        expect(held.orders.filter((row) => row.orderId === orderId && row.kind === "PICKING").map((row) => row.units)).toEqual([2])
      }))

    it.effect("consumptions: requests racing with one orderId and different content apply exactly one of them", () =>
      Effect.gen(function*() {
        const [answer] = (yield* capacity({ purchaseDate: runMonday, items: [item()] })).json() as ReadonlyArray<Answer>
        const orderId = `race-${run}`
        const answers = yield* Effect.forEach(Array.from({ length: 8 }, (_, i) => i), (i) =>
          send("POST", "/v1/delivery/capacity/consumptions", orderOf(answer!, orderId, 1 + (i % 2))), { concurrency: "unbounded" })
        const outcomes = answers.map((response, i) => ({
          units: 1 + (i % 2),
          status: response.status,
          // An OrderConflict is the 409 whose body names the fields that differ.
          outcome: (response.json() as { status?: string }).status ?? ("fields" in (response.json() as object) ? "OrderConflict" : response.text)
        }))
        const applied = outcomes.filter((o) => o.outcome === "APPLIED")
        expect(applied).toHaveLength(1)
        const winner = applied[0]!.units
        for (const o of outcomes) {
          if (o.outcome === "APPLIED") continue
          expect(o).toEqual(o.units === winner
            ? { units: winner, status: 200, outcome: "ALREADY_APPLIED" }
            : { units: o.units, status: 409, outcome: "OrderConflict" })
        }
        const held = (yield* send("GET", `/v1/delivery/capacity/nodes/CD-LURIN?from=${answer!.pickingDate}&to=${answer!.pickingDate}`)).json() as {
          orders: ReadonlyArray<{ orderId: string; kind: string; units: number }>
        }
        expect(held.orders.filter((row) => row.orderId === orderId && row.kind === "PICKING").map((row) => row.units)).toEqual([winner])
      }))

    it.effect("consumptions: an order that does not match the network is 400 naming the field", () =>
      Effect.gen(function*() {
        const [answer] = (yield* capacity({ purchaseDate: runMonday, items: [item()] })).json() as ReadonlyArray<Answer>
        const order = orderOf(answer!, `bad-${run}`, 1)
        const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
          [{ ...order, route: "R-NOPE" }, "route"],
          [{ ...order, dispatchCode: "CD-LURIN-LIMA-MODERNA" }, "dispatchCode"],
          [{ ...order, dispatchCode: "CD-LURIN-LIMA-NORTE-NH" }, "dispatchCode"],
          [{ ...order, deliveryWindow: "23:00-24:00" }, "deliveryWindow"],
          [{ ...order, details: [] }, "details"],
          [{ ...order, units: 0 }, "units"],
          [{ ...order, pickingDate: "2027-02-30" }, "pickingDate"]
        ]
        for (const [body, field] of cases) {
          const response = yield* send("POST", "/v1/delivery/capacity/consumptions", body)
          expect(response.status, JSON.stringify(body)).toBe(400)
          expect(response.text).toContain(field)
        }
      }))
  })
})
