import { NodeRuntime } from "@effect/platform-node"
import { Cause, Exit, Layer, References, Runtime } from "effect"
import { ServerLive } from "./Server.ts"

/**
 * SIGTERM or SIGINT ends the server by interruption once it has drained: that is the clean exit an
 * orchestrator asked for, so 0 (as under Effect 3), not Effect 4's default 130. Failures keep theirs.
 */
const teardown: Runtime.Teardown = (exit, onExit) =>
  Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)

// No spans: nothing exports them, and each SQL statement's would cost 10-20% of its client CPU.
Layer.launch(ServerLive.pipe(Layer.provide(Layer.succeed(References.TracerEnabled, false)))).pipe(
  NodeRuntime.runMain({ teardown })
)
