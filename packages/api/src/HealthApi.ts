import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"

export const DependencyState = Schema.Literals(["up", "down"])

/** What survives a restart, in the mode that is running. */
export const Durability = Schema.Struct({
  database: Schema.String,
  queue: Schema.String
}).annotate({ description: "What survives a restart of each dependency, in the configuration that is running" })

/** A load whose batches the queue lost before they were persisted (the load is FAILED). */
export const QueueLoss = Schema.Struct({
  at: Schema.String,
  processCode: Schema.String,
  lostBatches: Schema.Number,
  batches: Schema.Number
})

const readinessFields = {
  checks: Schema.Struct({ database: DependencyState, queue: DependencyState }),
  durability: Schema.optional(Durability),
  queueLosses: Schema.optional(Schema.Array(QueueLoss).annotate({
    description: "Loads this process found the queue had lost batches of (newest first, at most 20, since it started)"
  }))
}

export class Readiness extends Schema.Class<Readiness>("Readiness")({
  status: Schema.Literals(["ready", "not ready"]),
  ...readinessFields
}) {}

export class NotReady extends Schema.Class<NotReady>("NotReady")(
  { status: Schema.Literal("not ready"), ...readinessFields },
  { httpApiStatus: 503 }
) {
  readonly _tag = "NotReady" as const
}

export class HealthApi extends HttpApiGroup.make("health")
  .add(
    HttpApiEndpoint.get("health", "/health", {
      success: Schema.Struct({ status: Schema.Literal("ok") })
    }).annotate(OpenApi.Summary, "The process is alive")
  )
  .add(
    HttpApiEndpoint.get("ready", "/ready", {
      success: Readiness,
      error: NotReady
    }).annotate(OpenApi.Summary, "The database and the queue are reachable")
  )
  .annotate(OpenApi.Description, "Liveness and readiness, without authentication")
{}
