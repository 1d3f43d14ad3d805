import { NodeRuntime } from "@effect/platform-node"
import { Layer } from "effect"
import { ServerLive } from "./Server.ts"

Layer.launch(ServerLive).pipe(NodeRuntime.runMain)
