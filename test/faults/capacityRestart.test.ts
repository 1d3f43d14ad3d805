import { describe, expect, it } from "@effect/vitest"
import { Scrape } from "@retail/testkit"
import { Effect, Ref, Schema } from "effect"
import { CAPACITY_KEY, call, postJson, startApp } from "./support/App.ts"
import { lab } from "./support/Lab.ts"
import { Offer, orderOf as orderFor, pickupRequest, STORE, STORE_CAPACITY } from "./support/Capacity.ts"
import { withSql } from "./support/Postgres.ts"
import { freePort } from "./support/Processes.ts"

// 150 pickup orders of 1 unit ask for more than the store's day.
const CAPACITY = STORE_CAPACITY
const AMOUNT = 1
const ORDERS = 150
/** Clients at once: enough that the server takes orders in groups (OrderGroups.ts), checked on its /metrics at the end. */
const CLIENTS = 32

const Usage = Schema.Array(Schema.Struct({ used: Schema.Number, ledger: Schema.Number, orders: Schema.Number }))

describe("a capacity server restarted mid-traffic", () => {
  it.live("rebuilds its state from PostgreSQL and never oversells: every APPLIED order is held, the total never exceeds the capacity", () =>
    Effect.gen(function*() {
      const { dir, postgres, connection } = yield* lab("capacity-restart")
      const port = String(yield* freePort)
      const settings = { ...connection, PORT: port, METRICS_PUBLIC: "true" }
      const first = yield* startApp("app-1", dir, settings)
      const base = first.base
      // Orders are placed as a client would: from the dispatch of an answer (docs/capacity.md, consumptions).
      const offered = yield* postJson(base, "/v1/delivery/capacity", pickupRequest, CAPACITY_KEY)
      expect(offered.status).toBe(200)
      const [offer] = yield* Schema.decodeUnknownEffect(Offer)(offered.json())
      const DATE = offer.pickingDate
      const orderOf = (orderId: string) => orderFor(offer, orderId, AMOUNT)
      const answers = yield* Ref.make(new Map<string, number>())
      const finished = yield* Ref.make(0)

      // Each order is sent until it gets a definite answer: a cut connection is retried with the same orderId (idempotent).
      const order = (i: number) =>
        Effect.gen(function*() {
          const orderId = `FAULT-ORDER-${i}`
          for (;;) {
            const response = yield* Effect.result(postJson(base, "/v1/delivery/capacity/consumptions", orderOf(orderId), CAPACITY_KEY))
            if (response._tag === "Success" && (response.success.status === 200 || response.success.status === 409)) {
              yield* Ref.update(answers, (map) => new Map(map).set(orderId, response.success.status))
              yield* Ref.update(finished, (n) => n + 1)
              return
            }
            yield* Effect.sleep("200 millis")
          }
        })

      const restart = Effect.gen(function*() {
        while ((yield* Ref.get(finished)) < 30) yield* Effect.sleep("20 millis")
        yield* first.child.kill("SIGKILL")
        yield* first.child.exited
        yield* startApp("app-2", dir, settings)
      })
      const traffic = Effect.forEach(Array.from({ length: ORDERS }, (_, i) => i), order, { concurrency: CLIENTS, discard: true })
      yield* Effect.all([traffic, restart], { concurrency: 2 }).pipe(Effect.timeout("180 seconds"))

      const applied = [...(yield* Ref.get(answers)).entries()].filter(([, status]) => status === 200).map(([id]) => id)
      const [usage] = yield* withSql(postgres.url, (sql) =>
        sql`SELECT
              (SELECT coalesce(sum(used), 0) FROM capacity_usage WHERE kind = 'PICKING' AND code = ${STORE} AND slot = 'ALL' AND day = ${DATE}::date)::int AS used,
              (SELECT coalesce(sum(units), 0) FROM capacity_ledger WHERE kind = 'PICKING' AND code = ${STORE} AND slot = 'ALL' AND day = ${DATE}::date)::int AS ledger,
              (SELECT count(*) FROM capacity_orders WHERE order_id LIKE 'FAULT-ORDER-%')::int AS orders`.pipe(
          Effect.flatMap(Schema.decodeUnknownEffect(Usage))
        ))
      expect(usage!.used).toBeLessThanOrEqual(CAPACITY)
      expect(usage!.used).toBe(usage!.ledger)
      expect(usage!.orders).toBe(applied.length)
      expect(usage!.used).toBe(applied.length * AMOUNT)
      // The day was filled: less than one more order fits.
      expect(CAPACITY - usage!.used).toBeLessThan(AMOUNT)

      // The restarted server's own state agrees: it reports the same usage and refuses what no longer fits.
      const ledger = yield* call(base, `/v1/delivery/capacity/nodes/${STORE}?from=${DATE}&to=${DATE}`, { headers: { authorization: `Bearer ${CAPACITY_KEY}` } })
      expect(ledger.status).toBe(200)
      expect((ledger.json() as { usage: ReadonlyArray<{ kind: string; pool: string; used: number }> }).usage)
        .toContainEqual({ kind: "PICKING", pool: "ALL", date: DATE, used: usage!.used })
      const more = yield* postJson(base, "/v1/delivery/capacity/consumptions", orderOf("FAULT-LATE"), CAPACITY_KEY)
      expect(more.status).toBe(409)
      const again = yield* postJson(base, "/v1/delivery/capacity/consumptions", orderOf(applied[0]!), CAPACITY_KEY)
      expect(again.json()).toMatchObject({ status: "ALREADY_APPLIED" })

      // The restarted server took the orders after the restart in groups, not one statement each.
      const metrics = new Scrape((yield* call(base, "/metrics")).text)
      expect(metrics.sum("capacity_order_group_size")).toBeGreaterThan(metrics.value("capacity_order_group_size"))
    }))
})
