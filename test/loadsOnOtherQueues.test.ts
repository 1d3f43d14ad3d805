import { describe, expect, it } from "@effect/vitest"
import { sampleProducts } from "@retail/testkit"
import { Context, Effect, Layer } from "effect"
import type { HttpServer } from "effect/http"
import { postJson } from "./support/Http.ts"
import { loadView } from "./support/Loads.ts"
import { mintToken, TestServer } from "./support/TestServer.ts"

const sharedDatabase = Boolean(process.env["DATABASE_URL"])

const on = (context: Context.Context<HttpServer.HttpServer>) => <A, E>(effect: Effect.Effect<A, E, HttpServer.HttpServer>) =>
  Effect.provide(effect, context)

describe("servers that share a database but not a queue", () => {
  // testSettings gives each server streams of its own, as two deployments on one PostgreSQL would have.
  it.live.skipIf(!sharedDatabase)("a load published on one server's stream is not taken for lost by the reconciler of another stream", () =>
    Effect.gen(function*() {
      // No workers: the load stays PROCESSING with its batches on the publishing server's stream.
      const publishing = on(yield* Layer.build(TestServer({ RUN_WORKERS: "false" })))
      // Reconciles every 100 ms; none of those batches is on its stream, nor recorded as persisted.
      yield* Layer.build(TestServer({ RUN_WORKERS: "false", LOAD_RECONCILE_INTERVAL_MS: "100" }))
      const token = yield* mintToken()
      const products = sampleProducts(30, { prefix: `OQ-${crypto.randomUUID().slice(0, 8)}-` })
      const response = yield* publishing(postJson("/v1/load-products", { products }, token))
      expect(response.status, response.text).toBe(200)
      const { processCode } = response.json() as { processCode: string }

      yield* Effect.sleep("1500 millis")
      const view = yield* publishing(loadView(processCode, token))
      expect(view.status, JSON.stringify(view)).toBe("PROCESSING")
      expect(view.totals).toMatchObject({ accepted: 30, persisted: 0 })
    }))
})
