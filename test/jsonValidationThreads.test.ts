import { describe, expect, layer } from "@effect/vitest"
import { JsonValidationPool } from "@retail/service-upload"
import { sampleProducts } from "@retail/testkit"
import { Effect } from "effect"
import { productCounts, publishedEntries } from "./support/Loads.ts"
import { request } from "./support/Http.ts"
import { fileOf, formData } from "./support/Multipart.ts"
import { mintToken, TestServer } from "./support/TestServer.ts"

const prefix = `HJT${crypto.randomUUID().slice(0, 8).toUpperCase()}-`

/** Validation threads that exit on their first block, as a thread out of memory would. */
const crashingThreads = JsonValidationPool.make(2, {
  filename: new URL("../services/upload/test/support/crashingValidationThread.ts", import.meta.url).href,
  execArgv: ["--import", "tsx"]
})

describe("POST /v1/handle-json when its validation threads die", () => {
  layer(TestServer({}, { jsonValidationPool: crashingThreads }), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("answers 500 StorageFailed, records and publishes nothing, and answers the next upload the same way (no hang)", () =>
      Effect.gen(function*() {
        const token = yield* mintToken({ scope: "products:write products:read", company: "ACME" })
        const before = yield* publishedEntries
        for (let attempt = 0; attempt < 2; attempt++) {
          const body = formData([["productsJson", fileOf(JSON.stringify({ products: sampleProducts(300, { prefix }) }), "application/json")]])
          const response = yield* request("/v1/handle-json", { token, body })
          expect(response.status).toBe(500)
          expect(response.json()).toEqual({
            message: "The upload could not be validated (a validation thread failed: worker exited with code: 70); nothing was published. Retry later."
          })
        }
        expect(yield* publishedEntries).toBe(before)
        expect(yield* productCounts(prefix)).toMatchObject({ products: "0" })
      }))
  })
})
