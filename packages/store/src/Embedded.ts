import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { Effect } from "effect"
import { mkdir } from "node:fs/promises"
import { toStoreError } from "./StoreError.ts"

export const IN_MEMORY = "memory://"

export interface EmbeddedServer {
  readonly url: string
}

/**
 * PGlite's Postgres defaults to 128MB of shared buffers inside the process's WebAssembly memory:
 * 16MB keeps a freshly started embedded server at about 360-390 MiB resident instead of 860-880
 * (after initdb, migrations and the demo network), with no slower loads measured (the data files
 * stay in the OS page cache). A real PostgreSQL (DATABASE_URL) is for larger workloads.
 */
export const EMBEDDED_SHARED_BUFFERS = "16MB"

const openPGlite = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        if (dataDir !== IN_MEMORY) await mkdir(dataDir, { recursive: true })
        return await PGlite.create(dataDir, { postgresqlconf: [`shared_buffers=${EMBEDDED_SHARED_BUFFERS}`] })
      },
      catch: toStoreError("open embedded database")
    }),
    (db) => Effect.promise(() => db.close()).pipe(Effect.ignore)
  )

const serve = (db: PGlite, maxConnections: number) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections })
        await server.start()
        return server
      },
      catch: toStoreError("serve embedded database")
    }),
    (server) => Effect.promise(() => server.stop()).pipe(Effect.ignore)
  )

/**
 * PGlite (its data under `dataDir`, or in memory) behind a Postgres wire-protocol socket on a free
 * local port, so the embedded database is reached by the same PgClient as a real server.
 */
export const startEmbedded = (dataDir: string, poolSize: number) =>
  Effect.gen(function* () {
    const db = yield* openPGlite(dataDir)
    const server = yield* serve(db, poolSize + 4)
    return { url: `postgres://postgres@${server.getServerConn()}/postgres` } satisfies EmbeddedServer
  })
