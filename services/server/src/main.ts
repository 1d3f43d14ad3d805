import { NodeRuntime } from "@effect/platform-node"
import { Layer, References } from "effect"
import { ServerLive } from "./Server.ts"

// No spans: nothing exports them, and each SQL statement's would cost 10-20% of its client CPU.
Layer.launch(ServerLive.pipe(Layer.provide(Layer.succeed(References.TracerEnabled, false)))).pipe(NodeRuntime.runMain)
