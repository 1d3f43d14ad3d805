import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { on, restartedMidFeed, sequencedFeed } from "./support/Feeds.ts"
import { eventually, postJson, request } from "./support/Http.ts"
import { TestServer } from "./support/TestServer.ts"

const KEY = "replica-test-key"
/** docs/capacity.md, "Capacity shared across processes": an order shows in the other processes' answers within this, while Redis is up. */
const REPLICATION_BOUND_MS = 1000
const shared = Boolean(process.env["REDIS_URL"]) && Boolean(process.env["DATABASE_URL"])
const sharedDatabase = Boolean(process.env["DATABASE_URL"])

const run = crypto.randomUUID().slice(0, 8)
const DAY_MS = 86_400_000
const runMonday = new Date(Date.UTC(2028, 0, 3) + 7 * DAY_MS * Math.floor(Math.random() * 2000)).toISOString().slice(0, 10)
const dayAfter = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10)

const store = "TD-SAN-BORJA"
const pickupOn = (purchaseDate: string) => ({
  purchaseDate,
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
})

/** Two servers, each with its own network state and actors, over one Postgres and one Redis stream. */
const pair = Effect.gen(function*() {
  const settings = { CAPACITY_API_KEYS: KEY, CAPACITY_EVENTS_STREAM: `test:${run}:capacity:events`, RUN_WORKERS: "false" }
  const first = yield* Layer.build(TestServer(settings))
  const second = yield* Layer.build(TestServer(settings))
  return { first: on(first), second: on(second) }
})

const pickingDateOn = (purchaseDate: string) =>
  Effect.map(postJson("/v1/delivery/capacity", pickupOn(purchaseDate), KEY), (response) =>
    response.status === 200 ? (response.json() as ReadonlyArray<{ pickingDate: string }>)[0]?.pickingDate : `status ${response.status}`)
const pickingDate = pickingDateOn(runMonday)

/** The order that fills the store's picking day of `purchaseDate`, in the terms of the answer. */
const fillingOrder = (orderId: string, purchaseDate: string) =>
  Effect.map(postJson("/v1/delivery/capacity", pickupOn(purchaseDate), KEY), (response) => {
    const dispatch = (response.json() as ReadonlyArray<{
      dispatchCode: string
      route: string
      pickingDate: string
      deliveryTrace: ReadonlyArray<{ deliveryDate: string; details: ReadonlyArray<unknown> }>
    }>)[0]!
    return {
      orderId,
      dispatchCode: dispatch.dispatchCode,
      route: dispatch.route,
      pickingDate: dispatch.pickingDate,
      details: dispatch.deliveryTrace[0]!.details,
      deliveryDate: dispatch.deliveryTrace[0]!.deliveryDate,
      units: 120
    }
  })

const consume = (order: unknown) =>
  request("/v1/delivery/capacity/consumptions", {
    token: KEY,
    body: JSON.stringify(order),
    headers: { "content-type": "application/json" }
  })

interface Change {
  readonly node: string
  readonly sku: string
  readonly units: number
}

const { applied: feed } = sequencedFeed<{ readonly applied: number }>("/v1/stock/changes", KEY)

/** A SKU's stock as one server answers with it, by node (in code order). */
const held = (sku: string) =>
  Effect.map(request(`/v1/stock/${encodeURIComponent(sku)}`, { token: KEY }), (response): Record<string, number> =>
    Object.fromEntries(
      (response.json() as { holders: ReadonlyArray<{ node: string; units: number }> }).holders
        .map((row) => [row.node, row.units] as const)
        .sort(([a], [b]) => a.localeCompare(b))
    ))

/** What capacity_stock holds for some SKUs, by SKU and node (the source of truth). */
const storedStock = (skus: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ sku: string; node: string; units: number }>`SELECT sku, node, units FROM capacity_stock WHERE sku IN ${sql.in(skus)}`).pipe(
      Effect.orDie,
      Effect.map((rows) => {
        const bySku: Record<string, Record<string, number>> = {}
        for (const row of rows) (bySku[row.sku] ??= {})[row.node] = row.units
        return bySku
      })
    )

const stockOf = (skus: ReadonlyArray<string>) =>
  Effect.map(Effect.forEach(skus, held), (rows) => Object.fromEntries(skus.map((sku, i) => [sku, rows[i]!])))

/** A variant A quote of `quantity` units of `sku` from CD Lurín: its picking date, or null when refused (stock). */
const stockQuote = (sku: string, quantity: number) =>
  Effect.map(
    postJson("/v1/delivery/capacity", {
      purchaseDate: runMonday,
      items: [{ ...pickupOn(runMonday).items[0], origin: "CD-LURIN", entityType: "CD", skuCode: sku, quantity, deliveryMode: "HOME_DELIVERY", destination: "150122" }]
    }, KEY),
    (response) => (response.json() as ReadonlyArray<{ pickingDate: string | null }>)[0]?.pickingDate ?? null
  )

/** `bySku` as `stockOf` gives it: SKUs in `skus` order, nodes in code order. */
const sorted = (bySku: Record<string, Record<string, number>>, skus: ReadonlyArray<string>) =>
  Object.fromEntries(skus.map((sku) => [sku, Object.fromEntries(Object.entries(bySku[sku] ?? {}).sort(([a], [b]) => a.localeCompare(b)))]))

const FEED_NODES = ["CD-LURIN", "CD-CALLAO", "TD-SURCO", "TD-MIRAFLORES", "TD-SAN-BORJA", "TD-LA-MOLINA"] as const

describe("capacity shared across server processes", () => {
  it.live.skipIf(!shared)("a consumption through one server changes the next answer of the other", () =>
    Effect.scoped(Effect.gen(function*() {
      const { first, second } = yield* pair
      expect(yield* second(pickingDate)).toBe(runMonday)
      const order = yield* first(fillingOrder(`replica-${run}`, runMonday))
      const consumed = yield* first(consume(order))
      expect(consumed.status).toBe(200)
      // The store's day is full: the other server learns it from the stream, not from Postgres.
      expect(yield* second(eventually(pickingDate, (date) => date === dayAfter(runMonday), 10_000))).toBe(dayAfter(runMonday))

      const released = yield* first(request(`/v1/delivery/capacity/consumptions/${order.orderId}`, { token: KEY, method: "DELETE" }))
      expect(released.status).toBe(200)
      expect(yield* second(eventually(pickingDate, (date) => date === runMonday, 10_000))).toBe(runMonday)
    })), 120_000)

  it.live.skipIf(!shared)(`an order taken on one server changes the other's answer within the replication bound (${REPLICATION_BOUND_MS} ms)`, () =>
    Effect.scoped(Effect.gen(function*() {
      const { first, second } = yield* pair
      const monday = new Date(Date.parse(`${runMonday}T00:00:00Z`) + 14 * DAY_MS).toISOString().slice(0, 10)
      expect(yield* second(pickingDateOn(monday))).toBe(monday)
      const order = yield* first(fillingOrder(`bound-${run}`, monday))
      expect((yield* first(consume(order))).status).toBe(200)
      // From the first server's 200: the second's answers, asked again and again, until one shows the order.
      const answered = performance.now()
      let changedAfterMs = Number.POSITIVE_INFINITY
      while (performance.now() - answered < 10_000) {
        if ((yield* second(pickingDateOn(monday))) === dayAfter(monday)) {
          changedAfterMs = performance.now() - answered
          break
        }
        yield* Effect.sleep("10 millis")
      }
      expect(changedAfterMs).toBeLessThan(REPLICATION_BOUND_MS)
      expect((yield* first(request(`/v1/delivery/capacity/consumptions/${order.orderId}`, { token: KEY, method: "DELETE" }))).status).toBe(200)
    })), 120_000)

  it.live.skipIf(!sharedDatabase)("a change whose event was lost reaches the other server at its next reconciliation", () =>
    Effect.scoped(Effect.gen(function*() {
      // Separate event streams: nothing the first publishes reaches the second, as if the first
      // had died between its commit and its publication.
      const first = on(yield* Layer.build(TestServer({
        CAPACITY_API_KEYS: KEY,
        CAPACITY_EVENTS_STREAM: `test:${run}:capacity:events:first`,
        CAPACITY_RECONCILE_INTERVAL_MS: "0",
        RUN_WORKERS: "false"
      })))
      const second = on(yield* Layer.build(TestServer({
        CAPACITY_API_KEYS: KEY,
        CAPACITY_EVENTS_STREAM: `test:${run}:capacity:events:second`,
        CAPACITY_RECONCILE_INTERVAL_MS: "300",
        RUN_WORKERS: "false"
      })))
      const monday = dayAfter(new Date(Date.parse(`${runMonday}T00:00:00Z`) + 6 * DAY_MS).toISOString().slice(0, 10))
      expect(yield* second(pickingDateOn(monday))).toBe(monday)

      const order = yield* first(fillingOrder(`lost-event-${run}`, monday))
      expect((yield* first(consume(order))).status).toBe(200)
      expect(yield* second(eventually(pickingDateOn(monday), (date) => date === dayAfter(monday), 10_000))).toBe(dayAfter(monday))

      expect((yield* first(request(`/v1/delivery/capacity/consumptions/${order.orderId}`, { token: KEY, method: "DELETE" }))).status)
        .toBe(200)
      expect(yield* second(eventually(pickingDateOn(monday), (date) => date === monday, 10_000))).toBe(monday)

      // Stock too: the second server reads the rows written since its last pass.
      const sku = `SKU-${run}-LOST`
      yield* first(feed(1, [{ node: "TD-SURCO", sku, units: 8 }]))
      expect(yield* second(eventually(held(sku), (rows) => rows["TD-SURCO"] === 8, 10_000))).toEqual({ "TD-SURCO": 8 })
      yield* first(feed(2, [{ node: "TD-SURCO", sku, units: 0 }]))
      expect(yield* second(eventually(held(sku), (rows) => rows["TD-SURCO"] === 0, 10_000))).toEqual({ "TD-SURCO": 0 })
    })), 120_000)

  it.live.skipIf(!shared)("stock fed through one server is what the other answers with", () =>
    Effect.scoped(Effect.gen(function*() {
      const { first, second } = yield* pair
      const sku = `SKU-${run}-REPLICA`
      yield* first(feed(1, [{ node: "CD-LURIN", sku, units: 4 }]))
      expect(yield* second(eventually(held(sku), (rows) => rows["CD-LURIN"] === 4, 10_000))).toEqual({ "CD-LURIN": 4 })
      expect(yield* second(stockQuote(sku, 4))).not.toBeNull()
      yield* first(feed(2, [{ node: "CD-LURIN", sku, units: 3 }]))
      expect(yield* second(eventually(stockQuote(sku, 4), (date) => date === null, 10_000))).toBeNull()
      // A late batch through the other server changes nothing on either.
      expect((yield* second(feed(1, [{ node: "CD-LURIN", sku, units: 40 }]))).applied).toBe(0)
      expect(yield* first(held(sku))).toEqual({ "CD-LURIN": 3 })
      expect(yield* second(held(sku))).toEqual({ "CD-LURIN": 3 })
    })), 120_000)

  it.live.skipIf(!shared)("a replica stopped and another started mid-feed converge to the stock the database holds", () =>
    Effect.scoped(Effect.gen(function*() {
      const settings = { CAPACITY_API_KEYS: KEY, CAPACITY_EVENTS_STREAM: `test:${run}:capacity:events:restart`, RUN_WORKERS: "false" }
      const skus = Array.from({ length: 40 }, (_, i) => `SKU-${run}-FEED-${i}`)
      // Batches of 200 changes over 240 rows, each row set again and again with other units.
      const changesOf = (sequence: number): ReadonlyArray<Change> =>
        Array.from({ length: 200 }, (_, i) => {
          const row = (sequence * 37 + i * 11) % (skus.length * FEED_NODES.length)
          return { node: FEED_NODES[row % FEED_NODES.length]!, sku: skus[Math.floor(row / FEED_NODES.length)]!, units: (sequence * 13 + i) % 50 }
        })
      const { restarted, writer, writerStack } = yield* restartedMidFeed(settings, (sequence) => feed(sequence, changesOf(sequence)), held(skus[0]!))

      const truth = yield* Effect.provide(storedStock(skus), writerStack)
      expect(Object.keys(truth)).toHaveLength(skus.length)
      expect(yield* restarted(eventually(stockOf(skus), (rows) => JSON.stringify(rows) === JSON.stringify(sorted(truth, skus)), 10_000)))
        .toEqual(sorted(truth, skus))
      expect(yield* writer(stockOf(skus))).toEqual(sorted(truth, skus))
    })), 120_000)
})
