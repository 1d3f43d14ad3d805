import { describe, expect, layer } from "@effect/vitest"
import { LoadHistorySweep, UploadConfig } from "@retail/service-upload"
import { Database, LoadRepository, LoadRetention } from "@retail/store"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"

const Store = Layer.mergeAll(LoadRepository.layer, LoadRetention.layer).pipe(
  Layer.provideMerge(Database.layer({ url: Option.none(), dataDir: Database.IN_MEMORY, poolSize: 1 }))
)

/** `count` loads of `company`, finished (every product invalid), aged `days` days, their events published. */
const finishedLoads = (company: string, count: number, days: number) =>
  Effect.gen(function*() {
    const loads = yield* LoadRepository
    const sql = yield* SqlClient.SqlClient
    const codes: Array<string> = []
    for (let i = 0; i < count; i++) {
      const load = yield* loads.create({
        processCode: crypto.randomUUID(), company, source: "LOAD_PRODUCTS", received: 1, accepted: 0, failed: 1, errors: [{ sku: `S${i}`, error: "bad" }]
      })
      codes.push(load.processCode)
    }
    yield* sql`UPDATE loads SET completed_at = now() - make_interval(days => ${days}) WHERE company = ${company}`
    yield* sql`UPDATE load_events SET published_at = now() WHERE process_code IN ${sql.in(codes)}`
    return codes
  })

const DAY = 86_400_000

const loadsWithCode = (processCode: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM loads WHERE process_code = ${processCode}`.pipe(Effect.map((rows) => rows[0]?.n ?? -1)))

const loadsOf = (company: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM loads WHERE company = ${company}`.pipe(Effect.map((rows) => rows[0]?.n ?? -1)))

const sweepWith = (loadRetentionDays: number) =>
  LoadHistorySweep.layer.pipe(Layer.provide(UploadConfig.test({ loadRetentionDays })))

describe("LoadHistorySweep", () => {
  layer(Store, { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("at start, forgets every load finished longer ago than LOAD_RETENTION_DAYS, whatever their number, and keeps the younger", () =>
      Effect.gen(function*() {
        // More than one statement's worth (200), so the sweep goes on until none is due.
        yield* finishedLoads("OLD", 450, 31)
        yield* finishedLoads("YOUNG", 3, 29)
        yield* Effect.gen(function*() {
          const { sweep } = yield* LoadHistorySweep
          for (let i = 0; i < 500 && (yield* loadsOf("OLD")) > 0; i++) yield* Effect.sleep("20 millis")
          expect(yield* loadsOf("OLD")).toBe(0)
          // A later sweep answers how many it forgot.
          yield* finishedLoads("LATER", 3, 40)
          expect(yield* sweep).toBe(3)
          expect(yield* sweep).toBe(0)
        }).pipe(Effect.provide(sweepWith(30)))
        expect(yield* loadsOf("YOUNG")).toBe(3)
        expect(yield* loadsOf("LATER")).toBe(0)
      }))

    it.effect("LOAD_RETENTION_DAYS=0 keeps every load, even when a sweep is asked for", () =>
      Effect.gen(function*() {
        yield* finishedLoads("KEPT", 5, 10_000)
        const forgotten = yield* Effect.flatMap(LoadHistorySweep, ({ sweep }) => sweep).pipe(Effect.provide(sweepWith(0)))
        expect(forgotten).toBe(0)
        expect(yield* loadsOf("KEPT")).toBe(5)
      }))

    // This database is the test's own (no other server's relay publishes its events, no other sweep runs), so
    // the order, the bounds and the unpublished rule are checked here; the store's contract checks the rows on both databases.
    it.effect("forgetFinished: oldest first, at most `limit` loads and about `rowBudget` rows a statement; a load with events to publish waits for them", () =>
      Effect.gen(function*() {
        const retention = yield* LoadRetention
        const sql = yield* SqlClient.SqlClient
        // Aged past anything else in this database, in another order than made: named by age, oldest first.
        const made = yield* finishedLoads("ORDER", 6, 0)
        const years = [57, 60, 55, 59, 58, 56]
        for (const [i, code] of made.entries()) yield* sql`UPDATE loads SET completed_at = now() - make_interval(years => ${years[i]!}) WHERE process_code = ${code}`
        const codes = made.map((code, i) => ({ code, age: years[i]! })).sort((a, b) => b.age - a.age).map(({ code }) => code)
        const [, , third, fourth, fifth, sixth] = codes
        // The fifth has an event still to publish; the fourth holds 10,000 refused SKUs.
        yield* sql`UPDATE load_events SET published_at = NULL WHERE process_code = ${fifth!}`
        yield* sql`UPDATE loads SET failed = 10000 WHERE process_code = ${fourth!}`
        const cutoff = 50 * 365 * DAY
        const left = () => Effect.map(Effect.forEach(codes, (code) => Effect.map(loadsWithCode(code), (n) => n > 0)), (kept) => codes.filter((_, i) => kept[i]))

        expect(yield* retention.forgetFinished(cutoff, 2)).toBe(2)
        expect(yield* left()).toEqual([third, fourth, fifth, sixth])
        // The third (5 rows), and the fourth (10,004), as the rows before it are under the budget of 100; not the sixth.
        expect(yield* retention.forgetFinished(cutoff, 10, 100)).toBe(2)
        expect(yield* left()).toEqual([fifth, sixth])
        // The first load due is taken whatever the budget (1 here); the fifth waits for its event.
        expect(yield* retention.forgetFinished(cutoff, 10, 1)).toBe(1)
        expect(yield* left()).toEqual([fifth])
        expect(yield* retention.forgetFinished(cutoff, 10)).toBe(0)
        yield* sql`UPDATE load_events SET published_at = now() WHERE process_code = ${fifth!}`
        expect(yield* retention.forgetFinished(cutoff, 10)).toBe(1)
        expect(yield* left()).toEqual([])
      }))
  })
})
