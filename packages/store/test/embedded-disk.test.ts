import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { execFileSync } from "node:child_process"
import { existsSync } from "node:fs"
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Database, LoadRepository } from "../src/index.ts"
import { MIGRATIONS } from "../src/Migrations.ts"

const serverPids = (dataDir: string): Array<string> => {
  try {
    return execFileSync("pgrep", ["-f", `postgres -D ${dataDir}`], { encoding: "utf8" }).trim().split("\n").filter((pid) => pid !== "")
  } catch {
    return []
  }
}

describe("embedded PostgreSQL server on disk", () => {
  it.live("creates its data folder and parents, keeps data across restarts, migrates once, and stops with its scope", () =>
    Effect.gen(function* () {
      const root = yield* Effect.promise(() => mkdtemp(join(tmpdir(), "store-")))
      // As root the server runs as postgres, which must be able to pass through the test's folder.
      yield* Effect.promise(() => chmod(root, 0o755))
      yield* Effect.addFinalizer(() => Effect.promise(() => rm(root, { recursive: true, force: true })))
      const dataDir = join(root, "nested", "data")
      const options = { url: Option.none(), dataDir, poolSize: 2 }
      const processCode = crypto.randomUUID()
      const open = <A, E>(body: Effect.Effect<A, E, LoadRepository | SqlClient.SqlClient>) =>
        Effect.scoped(Effect.provide(body, LoadRepository.layer.pipe(Layer.provideMerge(Database.layer(options)))))
      yield* open(
        Effect.flatMap(LoadRepository, (loads) =>
          loads.create({ processCode, company: "DISK", source: "LOAD_PRODUCTS", received: 1, accepted: 1, failed: 0, errors: [] })
        )
      )
      expect(serverPids(dataDir)).toEqual([])
      const [status, migrations, version, listening] = yield* open(
        Effect.gen(function* () {
          const view = yield* Effect.flatMap(LoadRepository, (loads) => loads.find(processCode))
          const sql = yield* SqlClient.SqlClient
          const rows = yield* sql`SELECT count(*)::int AS n FROM retail_store_migrations`
          const server = yield* sql`SELECT current_setting('server_version_num')::int AS v, current_setting('listen_addresses') AS l`
          return [Option.map(view, (v) => v.status), rows[0]?.["n"], server[0]?.["v"], server[0]?.["l"]] as const
        })
      )
      expect(status).toEqual(Option.some("RECEIVED"))
      expect(migrations).toBe(Object.keys(MIGRATIONS).length)
      // A real server (not PGlite's 17), reachable only through its socket.
      expect(version).toBeGreaterThanOrEqual(180000)
      expect(listening).toBe("")
    }).pipe(Effect.scoped), 120_000)

  it.live("an initdb cut short leaves nothing that passes for a data folder; a folder of other files is refused, not replaced", () =>
    Effect.gen(function* () {
      const root = yield* Effect.promise(() => mkdtemp(join(tmpdir(), "store-")))
      yield* Effect.promise(() => chmod(root, 0o755))
      yield* Effect.addFinalizer(() => Effect.promise(() => rm(root, { recursive: true, force: true })))
      const open = (dataDir: string) =>
        Effect.scoped(Effect.provide(
          Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1 AS one`),
          Database.layer({ url: Option.none(), dataDir, poolSize: 1 })
        ))

      // What a start killed during initdb leaves: its staging folder, half written, and an empty data folder.
      const dataDir = join(root, "data")
      yield* Effect.promise(async () => {
        await mkdir(dataDir)
        // A pid that cannot be alive: the process that wrote it is gone.
        await mkdir(`${dataDir}.initdb-999999999`)
        await writeFile(join(`${dataDir}.initdb-999999999`, "PG_VERSION"), "18\n")
      })
      expect(yield* open(dataDir)).toEqual([{ one: 1 }])
      expect(existsSync(`${dataDir}.initdb-999999999`), "the dead process's staging folder is removed").toBe(false)

      const foreign = join(root, "documents")
      yield* Effect.promise(async () => {
        await mkdir(foreign)
        await writeFile(join(foreign, "notes.txt"), "mine")
      })
      const refused = yield* Effect.flip(open(foreign))
      expect(refused.message).toMatch(/holds files but no PostgreSQL data folder/)
    }).pipe(Effect.scoped), 120_000)
})
