import { HttpServer } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { eventually, postJson, request } from "./support/Http.ts"
import { TestServer } from "./support/TestServer.ts"

const KEY = "replica-test-key"
const shared = Boolean(process.env["REDIS_URL"]) && Boolean(process.env["DATABASE_URL"])

const run = crypto.randomUUID().slice(0, 8)
const DAY_MS = 86_400_000
const runMonday = new Date(Date.UTC(2028, 0, 3) + 7 * DAY_MS * Math.floor(Math.random() * 2000)).toISOString().slice(0, 10)
const dayAfter = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10)

const store = "TD-SAN-BORJA"
const pickup = {
  purchaseDate: runMonday,
  items: [{
    origin: store,
    entityType: "TD",
    skuCode: "SKU-CELULAR-A54",
    zone: "",
    dispatchType: "NORMAL",
    quantity: 1,
    destination: store,
    latitude: -12.09,
    longitude: -77.0,
    deliveryMode: "STORE_WITHDRAWAL"
  }]
}

/** Two servers, each with its own network state and actors, over one Postgres and one Redis stream. */
const pair = Effect.gen(function*() {
  const settings = { CAPACITY_API_KEYS: KEY, CAPACITY_EVENTS_STREAM: `test:${run}:capacity:events`, RUN_WORKERS: "false" }
  const first = yield* Layer.build(TestServer(settings))
  const second = yield* Layer.build(TestServer(settings))
  const on = (context: Context.Context<HttpServer.HttpServer>) => <A, E>(effect: Effect.Effect<A, E, HttpServer.HttpServer>) =>
    Effect.provide(effect, context)
  return { first: on(first), second: on(second) }
})

const pickingDate = Effect.map(postJson("/v1/delivery/capacity", pickup, KEY), (response) =>
  response.status === 200 ? (response.json() as ReadonlyArray<{ pickingDate: string }>)[0]?.pickingDate : `status ${response.status}`)

describe("capacity shared across server processes", () => {
  it.live.skipIf(!shared)("a consumption through one server changes the next answer of the other", () =>
    Effect.scoped(Effect.gen(function*() {
      const { first, second } = yield* pair
      expect(yield* second(pickingDate)).toBe(runMonday)
      const answer = (yield* first(postJson("/v1/delivery/capacity", pickup, KEY))).json() as ReadonlyArray<{
        dispatchCode: string
        route: string
        pickingDate: string
        deliveryTrace: ReadonlyArray<{ deliveryDate: string; details: ReadonlyArray<unknown> }>
      }>
      const dispatch = answer[0]!
      const order = {
        orderId: `replica-${run}`,
        dispatchCode: dispatch.dispatchCode,
        route: dispatch.route,
        pickingDate: dispatch.pickingDate,
        details: dispatch.deliveryTrace[0]!.details,
        deliveryDate: dispatch.deliveryTrace[0]!.deliveryDate,
        units: 120
      }
      const consumed = yield* first(request("/v1/delivery/capacity/consumptions", {
        token: KEY,
        body: JSON.stringify(order),
        headers: { "content-type": "application/json" }
      }))
      expect(consumed.status).toBe(200)
      // The store's day is full: the other server learns it from the stream, not from Postgres.
      expect(yield* second(eventually(pickingDate, (date) => date === dayAfter(runMonday), 10_000))).toBe(dayAfter(runMonday))

      const released = yield* first(request(`/v1/delivery/capacity/consumptions/${order.orderId}`, { token: KEY, method: "DELETE" }))
      expect(released.status).toBe(200)
      expect(yield* second(eventually(pickingDate, (date) => date === runMonday, 10_000))).toBe(runMonday)
    })), 120_000)
})
