import { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { IN_MEMORY, startEmbedded } from "./Embedded.ts"
import { embeddedPostgresUrl, startEmbeddedPostgres } from "./EmbeddedPostgres.ts"
import { migrate } from "./Migrations.ts"
import { preEncodedArrays } from "./PreEncodedArrays.ts"
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

/**
 * The pool opens its connections lazily: one query at start makes an unreachable server a
 * "connect" failure of the layer, not of whatever runs first. `prepare` names statements so each
 * connection parses them once (see PGLITE_PREPARE).
 */
const client = (url: string, poolSize: number, prepare = true) =>
  PgClient.layerFrom(
    PgClient.make({ url: Redacted.make(url), maxConnections: poolSize, prepare, types: preEncodedArrays() }).pipe(
      Effect.tap((sql) => sql`SELECT 1`),
      Effect.mapError(toStoreError("connect"))
    )
  )

/**
 * PGlite is one PostgreSQL session: pglite-socket interleaves the messages of every client
 * connection on it, so two connections running extended-protocol queries at once corrupt each
 * other ("unnamed prepared statement does not exist") and a transaction of one would see the
 * statements of another. One pooled connection serialises them correctly.
 */
const EMBEDDED_POOL_SIZE = 1

/**
 * Named prepared statements outlive the socket connection that prepared them in PGlite's single
 * session, and the pool replaces its connection after an idle minute or an interrupted query:
 * every new connection would prepare its statements again under new names, and the old ones
 * would pile up in PGlite's memory. Unnamed statements (what the pg driver used) leave nothing behind.
 */
const PGLITE_PREPARE = false

const connection = (options: DatabaseOptions) =>
  Option.match(options.url, {
    onSome: (url) => client(url, options.poolSize),
    onNone: () =>
      Layer.unwrap(
        options.dataDir === IN_MEMORY
          ? Effect.map(startEmbedded(IN_MEMORY, EMBEDDED_POOL_SIZE), (server) => client(server.url, EMBEDDED_POOL_SIZE, PGLITE_PREPARE))
          : Effect.map(startEmbeddedPostgres(options.dataDir), (server) => client(server.url, options.poolSize))
      )
  })

/**
 * Where another thread or process of this server reaches the database `options` describe, once its
 * layer is up: the server of the URL, or the embedded PostgreSQL server's socket. None for the
 * in-memory PGlite, which lives in this thread and serves one connection.
 */
export const sharedUrl = (options: Pick<DatabaseOptions, "url" | "dataDir">): Option.Option<string> =>
  Option.isSome(options.url) ? options.url : options.dataDir === IN_MEMORY ? Option.none() : Option.some(embeddedPostgresUrl(options.dataDir))

/** The SQL client of the store, migrated before it is handed out; scoped to the layer's lifetime. */
export const layer = (options: DatabaseOptions): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, StoreError> =>
  Layer.provideMerge(Layer.effectDiscard(migrate), connection(options))

/** For GET /ready: the database answers a trivial query in time. */
export const ready: Effect.Effect<void, StoreError, SqlClient.SqlClient> = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql`SELECT 1`.pipe(
    storeOperation("ready"),
    Effect.asVoid,
    Effect.timeoutOrElse({
      duration: Duration.seconds(2),
      orElse: () => Effect.fail(new StoreError({ operation: "ready", message: "database did not answer within 2 seconds" }))
    })
  )
)
