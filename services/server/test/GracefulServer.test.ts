import { describe, expect, it } from "@effect/vitest"
import type { AddressInfo } from "node:net"
import { GracefulServer } from "../src/FastLaneServer.ts"

const get = async (server: GracefulServer) => {
  const { port } = server.address() as AddressInfo
  const response = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(5_000) })
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body: await response.json() as unknown }
}

describe("GracefulServer", () => {
  it("answers 503 with Retry-After while it listens without a handler yet, and the handler's answer once there is one", async () => {
    const server = new GracefulServer(1_000)
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    try {
      expect(await get(server)).toEqual({ status: 503, retryAfter: "1", body: { message: "The server is starting; try again in a moment" } })
      server.on("request", (_request, response) => {
        response.writeHead(200, { "content-type": "application/json" })
        response.end(JSON.stringify({ status: "ok" }))
      })
      expect(await get(server)).toEqual({ status: 200, retryAfter: null, body: { status: "ok" } })
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
