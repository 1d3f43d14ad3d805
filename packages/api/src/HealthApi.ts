import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"

export const DependencyState = Schema.Literal("up", "down")

export class Readiness extends Schema.Class<Readiness>("Readiness")({
  status: Schema.Literal("ready", "not ready"),
  checks: Schema.Struct({ database: DependencyState, queue: DependencyState })
}) {}

export class NotReady extends Schema.Class<NotReady>("NotReady")(
  { status: Schema.Literal("not ready"), checks: Schema.Struct({ database: DependencyState, queue: DependencyState }) },
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
