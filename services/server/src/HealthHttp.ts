import { HttpApiBuilder } from "@effect/platform"
import { Api, NotReady, Readiness } from "@retail/api"
import { StreamQueue } from "@retail/queue"
import { Database } from "@retail/store"
import { SqlClient } from "@effect/sql"
import { Effect, Either } from "effect"

const state = <A, E>(result: Either.Either<A, E>) => (Either.isRight(result) ? "up" as const : "down" as const)

export const HealthHttp = HttpApiBuilder.group(Api, "health", (handlers) =>
  Effect.gen(function*() {
    const queue = yield* StreamQueue
    const databaseReady = Effect.provideService(Database.ready, SqlClient.SqlClient, yield* SqlClient.SqlClient)
    return handlers
      .handle("health", () => Effect.succeed({ status: "ok" as const }))
      .handle("ready", () =>
        Effect.gen(function*() {
          const [database, queueState] = yield* Effect.all([Effect.either(databaseReady), Effect.either(queue.ping)], {
            concurrency: 2
          })
          const checks = { database: state(database), queue: state(queueState) }
          return checks.database === "up" && checks.queue === "up"
            ? new Readiness({ status: "ready", checks })
            : yield* Effect.fail(new NotReady({ status: "not ready", checks }))
        }))
  }))
