import { demoNetwork } from "@retail/capacity"
import { Effect, Layer } from "effect"
import { request } from "./Http.ts"

/** A shared database may hold the network of an earlier run: PUT the current demo network, so that it is the one evaluated. */
export const DemoNetworkCurrent = (apiKey: string) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const response = yield* request("/v1/network", {
      method: "PUT",
      token: apiKey,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(demoNetwork)
    })
    if (response.status !== 200) return yield* Effect.die(new Error(`PUT /v1/network: ${response.status} ${response.text}`))
  }))
