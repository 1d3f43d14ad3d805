import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Layer, Option, Redacted } from "effect"
import { startEmbedded } from "./Embedded.ts"
import { migrate } from "./Migrations.ts"
import { storeOperation, StoreError, toStoreError } from "./StoreError.ts"

export { IN_MEMORY } from "./Embedded.ts"

export interface DatabaseOptions {
  /** A PostgreSQL server; when absent, an embedded PGlite serves the same driver. */
  readonly url: Option.Option<string>
  /** Data folder of the embedded database, or `memory://`. Unused with a url. */
  readonly dataDir: string
  readonly poolSize: number
}

const client = (url: string, poolSize: number) =>
  PgClient.layer({ url: Redacted.make(url), maxConnections: poolSize }).pipe(
    Layer.mapError(toStoreError("connect"))
  )

const connection = (options: DatabaseOptions) =>
  Option.match(options.url, {
    onSome: (url) => client(url, options.poolSize),
    onNone: () =>
      Layer.unwrapScoped(
        Effect.map(startEmbedded(options.dataDir, options.poolSize), (server) => client(server.url, options.poolSize))
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
