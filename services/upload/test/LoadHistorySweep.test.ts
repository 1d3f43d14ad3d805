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

    it.effect("LOAD_RETENTION_DAYS=0 keeps every load: no sweep at start, and one asked for forgets nothing", () =>
      Effect.gen(function*() {
        yield* finishedLoads("KEPT", 5, 10_000)
        const forgotten = yield* Effect.flatMap(LoadHistorySweep, ({ sweep }) => Effect.andThen(Effect.sleep("200 millis"), sweep)).pipe(Effect.provide(sweepWith(0)))
        expect(forgotten).toBe(0)
        expect(yield* loadsOf("KEPT")).toBe(5)
      }))
  })
})
