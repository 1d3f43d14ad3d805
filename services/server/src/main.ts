import { NodeRuntime } from "@effect/platform-node"
import { Cause, Exit, Layer, Runtime } from "effect"
import { LoggingLive } from "./Logging.ts"
import { ServerLive } from "./Server.ts"
import { TracingLive } from "./Tracing.ts"

/**
 * SIGTERM or SIGINT ends the server by interruption once it has drained: that is the clean exit an
 * orchestrator asked for, so 0 (as under Effect 3), not Effect 4's default 130. Failures keep theirs.
 */
const teardown: Runtime.Teardown = (exit, onExit) =>
  Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)

/**
 * Logs in LOG_FORMAT at LOG_LEVEL. Spans only with OTEL_EXPORTER_OTLP_ENDPOINT set, sampled; without
 * it the tracer is off: nothing exports spans, and each SQL statement's would cost 10-20% of its client CPU.
 */
const Observability = TracingLive.pipe(Layer.provideMerge(LoggingLive))

Layer.launch(ServerLive.pipe(Layer.provide(Observability))).pipe(NodeRuntime.runMain({ teardown }))
