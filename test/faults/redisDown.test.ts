import { describe, expect, it } from "@effect/vitest"
import { csvFilesOf, sampleProducts } from "@retail/testkit"
import { Effect } from "effect"
import { call, loadStatus, postJson, startApp, token } from "./support/App.ts"
import { lab } from "./support/Lab.ts"
import { waitUntil } from "./support/Processes.ts"
import { entriesAdded } from "./support/Redis.ts"

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/

describe("Redis stopped while loads arrive", () => {
  it.live("each load gets a 500 ErrorMessage and is FAILED with nothing published; once Redis is back, loads succeed without a restart", () =>
    Effect.gen(function*() {
      const { dir, redis, names, connection } = yield* lab("redis-down")
      const app = yield* startApp("api", dir, {
        ...connection,
        REDIS_PUBLISH_TIMEOUT_MS: "2000",
        PRODUCT_BATCH_SIZE: "50",
        CLAIM_IDLE_MS: "1000"
      })
      const bearer = yield* token("ACME")
      const completes = (processCode: string) =>
        waitUntil(`load ${processCode} COMPLETED`, Effect.flatMap(loadStatus(app.base, processCode, bearer), (view) =>
          view.status === "COMPLETED" ? Effect.succeed(view) : Effect.fail(new Error(view.status))), "90 seconds")

      const before = yield* postJson(app.base, "/v1/load-products", { products: sampleProducts(120, { prefix: "RD-BEFORE" }) }, bearer)
      expect(before.status).toBe(200)
      yield* completes((before.json() as { processCode: string }).processCode)

      yield* redis.stop
      const ready = yield* call(app.base, "/ready")
      expect(ready.status).toBe(503)
      expect(ready.json()).toMatchObject({ checks: { database: "up", queue: "down" } })

      const refused = yield* Effect.forEach([0, 1, 2, 3], (i) =>
        postJson(app.base, "/v1/load-products", { products: sampleProducts(120, { prefix: `RD-DOWN${i}-` }) }, bearer), { concurrency: 4 })
      const failedCodes: Array<string> = []
      for (const response of refused) {
        expect(response.status, response.text).toBe(500)
        const body = response.json() as { message: string }
        expect(Object.keys(body)).toEqual(["message"])
        expect(body).not.toHaveProperty("processing")
        const code = UUID.exec(body.message)?.[0]
        expect(code, body.message).toBeDefined()
        failedCodes.push(code!)
      }
      // A CSV load is joined and spooled first; its publication then fails the same way.
      const csv = csvFilesOf(sampleProducts(600, { prefix: "RD-CSV-" }))
      const form = new FormData()
      for (const part of ["productsCsv", "hierarchiesCsv", "barcodesCsv", "attributesCsv"] as const) {
        form.append(part, new Blob([csv[part]], { type: "text/csv" }), `${part}.csv`)
      }
      const csvRefused = yield* call(app.base, "/v1/handle-csv", { method: "POST", headers: { authorization: `Bearer ${bearer}` }, body: form })
      expect(csvRefused.status, csvRefused.text).toBe(500)
      expect(csvRefused.json()).toEqual({ message: expect.stringContaining("could not be sent to the messaging system") })
      const csvView = yield* loadStatus(app.base, UUID.exec(csvRefused.text)?.[0] ?? "no process code in the answer", bearer)
      expect(csvView.status).toBe("FAILED")
      expect(csvView.totals.received).toBe(0)
      expect(csvView.failureReason).toMatch(/^publishing the file load failed after 0 batches: /)

      for (const code of failedCodes) {
        const view = yield* loadStatus(app.base, code, bearer)
        expect(view.status).toBe("FAILED")
        expect(view.totals.persisted).toBe(0)
        expect(view.failureReason).toMatch(/messaging system/)
      }

      yield* redis.start
      yield* waitUntil("ready again", Effect.flatMap(call(app.base, "/ready"), (r) => r.status === 200 ? Effect.void : Effect.fail(new Error(r.text))))
      const after = yield* postJson(app.base, "/v1/load-products", { products: sampleProducts(120, { prefix: "RD-AFTER" }) }, bearer)
      expect(after.status, after.text).toBe(200)
      const afterCode = (after.json() as { processCode: string }).processCode
      const done = yield* completes(afterCode)
      expect(done.totals).toEqual({ received: 120, accepted: 120, persisted: 120, failed: 0 })

      // Nothing of a refused load reached the (restarted, hence emptied) stream: it received the after-load's
      // 3 batches of 50, 50 and 20 and nothing else (persisted batches are deleted, so count what was appended).
      expect(yield* entriesAdded(redis.url, names.PRODUCT_BATCHES_STREAM)).toBe(3)
      for (const code of failedCodes) expect((yield* loadStatus(app.base, code, bearer)).status).toBe("FAILED")
    }))
})
