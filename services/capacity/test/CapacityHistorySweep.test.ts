import { describe, expect, it, layer } from "@effect/vitest"
import { CapacityConfig, CapacityHistorySweep, keptFrom } from "@retail/service-capacity"
import { CapacityRetention, Database } from "@retail/store"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"

// A database of its own: other test servers' sweeps would take the old rows of a shared one.
const Store = CapacityRetention.layer.pipe(
  Layer.provideMerge(Database.layer({ url: Option.none(), dataDir: Database.IN_MEMORY, poolSize: 1 }))
)

const settings = (retentionDays: number) => CapacityConfig.test({ retentionDays })

/** An order placed at `placed` taking a unit of `code` on each of `days`, and those days' usage rows. */
const order = (orderId: string, placed: string, code: string, days: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`INSERT INTO capacity_orders (order_id, created_at) VALUES (${orderId}, ${placed}::timestamptz)`
    for (const day of days) {
      yield* sql`INSERT INTO capacity_usage (kind, code, slot, day, used) VALUES ('node', ${code}, 'picking', ${day}::date, 1)
                 ON CONFLICT (kind, code, slot, day) DO UPDATE SET used = capacity_usage.used + 1`
      yield* sql`INSERT INTO capacity_ledger (order_id, kind, code, slot, day, units) VALUES (${orderId}, 'node', ${code}, 'picking', ${day}::date, 1)`
    }
  })

const networkChange = (target: string, day: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`INSERT INTO capacity_network_changes (kind, target, part, day, value, sequence) VALUES ('holiday', ${target}, '', ${day}::date, NULL, 1)`)

const ordersOf = (code: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ readonly orderId: string }>`SELECT DISTINCT o.order_id AS "orderId" FROM capacity_orders o
      LEFT JOIN capacity_ledger l ON l.order_id = o.order_id WHERE l.code = ${code} OR o.order_id LIKE ${`${code}%`} ORDER BY 1`.pipe(
      Effect.map((rows) => rows.map((row) => row.orderId))
    ))

const rowsOf = (code: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ readonly ledger: number; readonly usage: number; readonly changes: number }>`SELECT
      (SELECT count(*)::int FROM capacity_ledger WHERE code = ${code}) AS ledger,
      (SELECT count(*)::int FROM capacity_usage WHERE code = ${code}) AS usage,
      (SELECT count(*)::int FROM capacity_network_changes WHERE target = ${code}) AS changes`.pipe(Effect.map((rows) => rows[0])))

const validIndexes = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ readonly name: string }>`SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
    WHERE c.relname IN ('capacity_orders_created', 'capacity_usage_day') AND i.indisvalid ORDER BY 1`.pipe(Effect.map((rows) => rows.map((row) => row.name))))

describe("CapacityHistorySweep", () => {
  it("keeps from CAPACITY_RETENTION_DAYS before yesterday (UTC), the oldest day a replica reads", () => {
    expect(keptFrom(Date.parse("2026-11-27T10:00:00Z"), 1)).toBe("2026-11-25")
    expect(keptFrom(Date.parse("2026-11-27T00:00:00Z"), 30)).toBe("2026-10-27")
    expect(keptFrom(Date.parse("2026-03-01T23:59:59Z"), 1)).toBe("2026-02-27")
  })

  layer(Store, { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("forgets the days before the first day kept: orders none of whose uses is kept (with their ledger), usage rows, network changes", () =>
      Effect.gen(function*() {
        const code = "SWEEP1"
        // 30 days kept before yesterday: the first day kept is 31 days ago.
        const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10)
        const at = (daysAgo: number) => `${day(daysAgo)}T12:00:00Z`
        yield* order(`${code}-past`, at(90), code, [day(89), day(88)])
        yield* order(`${code}-spanning`, at(70), code, [day(40), day(31)])
        yield* order(`${code}-future`, at(60), code, [day(-4)])
        yield* order(`${code}-nothing-taken`, at(90), code, [])
        yield* order(`${code}-recent`, at(1), code, [])
        yield* networkChange(code, day(32))
        yield* networkChange(code, day(31))

        yield* Effect.gen(function*() {
          // The sweep at start: done once the network change of 32 days ago, swept last, is gone.
          for (let i = 0; i < 500 && (yield* rowsOf(code))?.changes !== 1; i++) yield* Effect.sleep("20 millis")
          expect(yield* ordersOf(code)).toEqual([`${code}-future`, `${code}-recent`, `${code}-spanning`].sort())
          // The spanning order keeps its ledger; usage of 89, 88 and 40 days ago is gone, 31 days ago and the future stay.
          expect(yield* rowsOf(code)).toEqual({ ledger: 3, usage: 2, changes: 1 })
          // The indexes it reads by were built first.
          expect(yield* validIndexes).toEqual(["capacity_orders_created", "capacity_usage_day"])

          // A later sweep answers what it forgot.
          yield* order(`${code}-later`, at(50), code, [day(45)])
          const { sweep } = yield* CapacityHistorySweep
          expect(yield* sweep).toEqual({ orders: 1, usage: 1, networkChanges: 0 })
          expect(yield* sweep).toEqual({ orders: 0, usage: 0, networkChanges: 0 })
        }).pipe(Effect.provide(CapacityHistorySweep.layer.pipe(Layer.provide(settings(30)))))
        expect(yield* rowsOf(code)).toEqual({ ledger: 3, usage: 2, changes: 1 })
      }))

    it.effect("each statement takes at most its limit, oldest orders first, and an order placed the day before the cutoff counts by UTC", () =>
      Effect.gen(function*() {
        const retention = yield* CapacityRetention
        const sql = yield* SqlClient.SqlClient
        const code = "SWEEP2"
        // A session five hours behind UTC: the cutoff day still begins at midnight UTC (one connection, so it holds).
        yield* sql`SET TIME ZONE 'America/Lima'`
        yield* order(`${code}-a`, "2001-01-03T00:00:00Z", code, ["2001-01-04"])
        yield* order(`${code}-b`, "2001-01-01T00:00:00Z", code, ["2001-01-02"])
        yield* order(`${code}-c`, "2001-01-02T00:00:00Z", code, ["2001-01-03"])
        yield* order(`${code}-d`, "2001-01-31T23:30:00Z", code, [])
        yield* order(`${code}-e`, "2001-02-01T00:30:00Z", code, [])
        expect(yield* retention.forgetOrders("2001-02-01", 2)).toBe(2)
        expect(yield* ordersOf(code)).toEqual([`${code}-a`, `${code}-d`, `${code}-e`])
        expect(yield* retention.forgetUsage("2001-02-01", 2)).toBe(2)
        expect(yield* retention.forgetUsage("2001-02-01", 2)).toBe(1)
        expect(yield* retention.forgetUsage("2001-02-01", 2)).toBe(0)
        expect(yield* retention.forgetOrders("2001-02-01", 5)).toBe(2)
        expect(yield* ordersOf(code)).toEqual([`${code}-e`])
        expect(yield* rowsOf(code)).toEqual({ ledger: 0, usage: 0, changes: 0 })
        yield* sql`SET TIME ZONE 'UTC'`
      }))

    it.effect("an index left invalid (its build cut off by a kill) is dropped and built again", () =>
      Effect.gen(function*() {
        const retention = yield* CapacityRetention
        const sql = yield* SqlClient.SqlClient
        yield* retention.ensureIndexes
        // What a CREATE INDEX CONCURRENTLY killed half-way leaves behind.
        yield* sql`UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'capacity_orders_created'::regclass`
        expect(yield* validIndexes).toEqual(["capacity_usage_day"])
        yield* retention.ensureIndexes
        expect(yield* validIndexes).toEqual(["capacity_orders_created", "capacity_usage_day"])
      }))

    it.effect("with CAPACITY_RETENTION_DAYS=0 nothing is forgotten", () =>
      Effect.gen(function*() {
        const code = "SWEEP3"
        // After the day the limits test forgets before, whichever runs first.
        yield* order(`${code}-old`, "2005-01-01T00:00:00Z", code, ["2005-01-02"])
        const forgotten = yield* Effect.gen(function*() {
          const { sweep } = yield* CapacityHistorySweep
          return yield* sweep
        }).pipe(Effect.provide(CapacityHistorySweep.layer.pipe(Layer.provide(settings(0)))))
        expect(forgotten).toEqual({ orders: 0, usage: 0, networkChanges: 0 })
        expect(yield* ordersOf(code)).toEqual([`${code}-old`])
      }))
  })
})
