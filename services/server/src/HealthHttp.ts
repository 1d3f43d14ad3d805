import { Api, NotReady, Readiness } from "@retail/api"
import { StreamQueue } from "@retail/queue"
import { LoadReconciler } from "@retail/service-upload"
import { Database } from "@retail/store"
import { Effect, Option, Result } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { SqlClient } from "effect/sql"
import { ServerConfig } from "./ServerConfig.ts"

const state = <A, E>(result: Result.Result<A, E>) => (Result.isSuccess(result) ? "up" as const : "down" as const)

export const HealthHttp = HttpApiBuilder.group(Api, "health", (handlers) =>
  Effect.gen(function*() {
    const queue = yield* StreamQueue
    const reconciler = yield* LoadReconciler
    const config = yield* ServerConfig
    const databaseReady = Effect.provideService(Database.ready, SqlClient.SqlClient, yield* SqlClient.SqlClient)
    const databaseDurability = Option.isSome(config.databaseUrl)
      ? "PostgreSQL server (DATABASE_URL): as durable as that server is run"
      : config.dataDir === Database.IN_MEMORY
      ? "embedded PostgreSQL in memory (DATA_DIR=memory://): everything is lost when the process stops"
      : `embedded PostgreSQL with its data in ${config.dataDir}: kept across restarts on this machine's disk`
    return handlers
      .handle("health", () => Effect.succeed({ status: "ok" as const }))
      .handle("ready", () =>
        Effect.gen(function*() {
          const [database, queueState, durability] = yield* Effect.all(
            [Effect.result(databaseReady), Effect.result(queue.ping), Effect.result(queue.durability)],
            { concurrency: 3 }
          )
          const fields = {
            checks: { database: state(database), queue: state(queueState) },
            durability: {
              database: databaseDurability,
              queue: Result.match(durability, { onFailure: (error) => `unknown: ${error.message}`, onSuccess: (d) => d.description })
            },
            queueLosses: yield* reconciler.losses
          }
          return fields.checks.database === "up" && fields.checks.queue === "up"
            ? new Readiness({ status: "ready", ...fields })
            : yield* Effect.fail(new NotReady({ status: "not ready", ...fields }))
        }))
  }))
