import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"

export const DependencyState = Schema.Literal("up", "down")

/** What survives a restart, in the mode that is running. */
export const Durability = Schema.Struct({
  database: Schema.String,
  queue: Schema.String
}).annotations({ description: "What survives a restart of each dependency, in the configuration that is running" })

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
  queueLosses: Schema.optional(Schema.Array(QueueLoss).annotations({
    description: "Loads this process found the queue had lost batches of (newest first, at most 20, since it started)"
  }))
}

export class Readiness extends Schema.Class<Readiness>("Readiness")({
  status: Schema.Literal("ready", "not ready"),
  ...readinessFields
}) {}

export class NotReady extends Schema.Class<NotReady>("NotReady")(
  { status: Schema.Literal("not ready"), ...readinessFields },
  HttpApiSchema.annotations({ status: 503 })
) {
  readonly _tag = "NotReady" as const
}

export class HealthApi extends HttpApiGroup.make("health")
  .add(
    HttpApiEndpoint.get("health", "/health")
      .addSuccess(Schema.Struct({ status: Schema.Literal("ok") }))
      .annotate(OpenApi.Summary, "The process is alive")
  )
  .add(
    HttpApiEndpoint.get("ready", "/ready")
      .addSuccess(Readiness)
      .addError(NotReady)
      .annotate(OpenApi.Summary, "The database and the queue are reachable")
  )
{}
