import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Layer, Option, Redacted } from "effect"
import { IN_MEMORY, startEmbedded } from "./Embedded.ts"
import { startEmbeddedPostgres } from "./EmbeddedPostgres.ts"
import { migrate } from "./Migrations.ts"
import { storeOperation, StoreError, toStoreError } from "./StoreError.ts"

export { IN_MEMORY } from "./Embedded.ts"

export interface DatabaseOptions {
  /**
   * A PostgreSQL server; when absent, the service runs its own: a real PostgreSQL server on
   * `dataDir`, or an in-memory PGlite for `memory://` (tests that need no files).
   */
  readonly url: Option.Option<string>
  /** Data folder of the embedded PostgreSQL server, or `memory://`. Unused with a url. */
  readonly dataDir: string
  /** Connections to the PostgreSQL server (embedded or not); the in-memory PGlite always uses one (see below). */
  readonly poolSize: number
}

const client = (url: string, poolSize: number) =>
  PgClient.layer({ url: Redacted.make(url), maxConnections: poolSize }).pipe(
    Layer.mapError(toStoreError("connect"))
  )

/**
 * PGlite is one PostgreSQL session: pglite-socket interleaves the messages of every client
 * connection on it, so two connections running extended-protocol queries at once corrupt each
 * other ("unnamed prepared statement does not exist") and a transaction of one would see the
 * statements of another. One pooled connection serialises them correctly.
 */
const EMBEDDED_POOL_SIZE = 1

const connection = (options: DatabaseOptions) =>
  Option.match(options.url, {
    onSome: (url) => client(url, options.poolSize),
    onNone: () =>
      Layer.unwrapScoped(
        options.dataDir === IN_MEMORY
          ? Effect.map(startEmbedded(IN_MEMORY, EMBEDDED_POOL_SIZE), (server) => client(server.url, EMBEDDED_POOL_SIZE))
          : Effect.map(startEmbeddedPostgres(options.dataDir), (server) => client(server.url, options.poolSize))
      )
  })

/** The SQL client of the store, migrated before it is handed out; scoped to the layer's lifetime. */
export const layer = (options: DatabaseOptions): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, StoreError> =>
  Layer.provideMerge(Layer.effectDiscard(migrate), connection(options))

/** For GET /ready: the database answers a trivial query in time. */
export const ready: Effect.Effect<void, StoreError, SqlClient.SqlClient> = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql`SELECT 1`.pipe(
    storeOperation("ready"),
    Effect.asVoid,
    Effect.timeoutFail({
      duration: Duration.seconds(2),
      onTimeout: () => new StoreError({ operation: "ready", message: "database did not answer within 2 seconds" })
    })
  )
)
