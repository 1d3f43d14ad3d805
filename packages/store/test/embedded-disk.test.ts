import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Database, LoadRepository } from "../src/index.ts"

describe("embedded PGlite on disk", () => {
  it.live("creates its data folder and parents, keeps data across restarts, migrates once, with small shared buffers", () =>
    Effect.gen(function* () {
      const root = yield* Effect.promise(() => mkdtemp(join(tmpdir(), "store-")))
      yield* Effect.addFinalizer(() => Effect.promise(() => rm(root, { recursive: true, force: true })))
      const options = { url: Option.none(), dataDir: join(root, "nested", "data"), poolSize: 2 }
      const processCode = crypto.randomUUID()
      const open = <A, E>(body: Effect.Effect<A, E, LoadRepository | SqlClient.SqlClient>) =>
        Effect.scoped(Effect.provide(body, LoadRepository.Default.pipe(Layer.provideMerge(Database.layer(options)))))
      yield* open(
        Effect.flatMap(LoadRepository, (loads) =>
          loads.create({ processCode, company: "DISK", source: "LOAD_PRODUCTS", received: 1, accepted: 1, failed: 0, errors: [] })
        )
      )
      const [status, migrations, buffers] = yield* open(
        Effect.gen(function* () {
          const view = yield* Effect.flatMap(LoadRepository, (loads) => loads.find(processCode))
          const sql = yield* SqlClient.SqlClient
          const rows = yield* sql`SELECT count(*)::int AS n FROM retail_store_migrations`
          const setting = yield* sql`SHOW shared_buffers`
          return [Option.map(view, (v) => v.status), rows[0]?.["n"], setting[0]?.["shared_buffers"]] as const
        })
      )
      expect(status).toEqual(Option.some("RECEIVED"))
      expect(migrations).toBe(4)
      // Memory: see EMBEDDED_SHARED_BUFFERS.
      expect(buffers).toBe("16MB")
    }).pipe(Effect.scoped), 60_000)
})
