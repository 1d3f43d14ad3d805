import { describe, expect, it } from "@effect/vitest"
import { sampleProducts } from "@retail/testkit"
import { Effect } from "effect"
import { serverNodeFlags } from "../scripts/serverNodeFlags.ts"
import { objectBomb, peakRssMib, send, severalAtOnce } from "./support/HostileBodies.ts"
import { startServerProcess } from "./support/ServerProcess.ts"
import { mintToken } from "./support/TestServer.ts"

const KEY = "hostile-bodies-capacity-key"
const MIB = 1024 * 1024

describe("bodies of millions of tiny JSON values, four at a time, against a server with npm start's heap", () => {
  it.live("each is refused naming the limit, and the server keeps answering", () =>
    Effect.scoped(Effect.gen(function*() {
      // The ceiling these bodies must not break through: the servers run with npm start's flags (ServerBundle.ts).
      expect(serverNodeFlags()).toContain("--max-old-space-size=512")
      const server = yield* startServerProcess({ CAPACITY_API_KEYS: KEY, RUN_WORKERS: "true" })
      const token = yield* mintToken({ scope: "products:write products:read", company: "ACME" })
      const at = (path: string) => `${server.baseUrl}${path}`
      const fourAtOnce = (url: string, init: RequestInit) => severalAtOnce(4, url, () => init)
      const json = { "content-type": "application/json" }

      const products = yield* fourAtOnce(at("/v1/load-products"), {
        method: "POST",
        headers: { ...json, authorization: `Bearer ${token}` },
        body: objectBomb(32 * MIB - 16, "{\"products\":[],\"x\":[", "]}")
      })
      for (const answer of products) {
        expect(answer, server.output().slice(-2000)).toEqual({
          status: 413,
          text: expect.stringContaining("more than 1000000 JSON values (LOAD_PRODUCTS_MAX_VALUES)")
        })
      }

      const capacityBomb = objectBomb(16 * MIB - 16, "[", "]")
      // The key is checked before the body is read: a caller without one costs no counting.
      expect(yield* send(at("/v1/network"), { method: "PUT", headers: { ...json, authorization: "Bearer wrong" }, body: capacityBomb }))
        .toEqual({ status: 401, text: "" })
      for (const [method, path] of [["PUT", "/v1/network"], ["POST", "/v1/delivery/capacity/consumptions"]] as const) {
        const answers = yield* fourAtOnce(at(path), { method, headers: { ...json, authorization: `Bearer ${KEY}` }, body: capacityBomb })
        for (const answer of answers) {
          expect(answer, `${method} ${path}\n${server.output().slice(-2000)}`).toEqual({
            status: 413,
            text: expect.stringContaining("more than 1000000 JSON values (REQUEST_MAX_VALUES)")
          })
        }
      }

      // The fast lane's 1 MiB (~350k objects) is parsed synchronously: one at a time, dropped at once.
      const lane = yield* fourAtOnce(at("/v1/delivery/capacity"), {
        method: "POST",
        headers: { ...json, authorization: `Bearer ${KEY}` },
        body: objectBomb(MIB - 16, "[", "]")
      })
      for (const answer of lane) expect(answer.status, server.output().slice(-2000)).toBe(400)

      expect(server.child.exitCode, server.output().slice(-2000)).toBeNull()
      expect(yield* send(at("/health"), {})).toEqual({ status: 200, text: "{\"status\":\"ok\"}" })
      const normal = yield* send(at("/v1/load-products"), {
        method: "POST",
        headers: { ...json, authorization: `Bearer ${token}` },
        body: JSON.stringify({ products: sampleProducts(3000, { prefix: `HOSTILE${Date.now()}-` }) })
      })
      expect(normal, server.output().slice(-2000)).toEqual({
        status: 200,
        text: expect.stringContaining("3000 products are being processed")
      })
      yield* Effect.logInfo(`peak RSS of the server: ${peakRssMib(server.child.pid)} MiB`)
    })), { timeout: 300_000 })
})
