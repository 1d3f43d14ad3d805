import { describe, expect, layer } from "@effect/vitest"
import { JsonValidationPool } from "@retail/service-upload"
import { sampleProducts } from "@retail/testkit"
import { Effect } from "effect"
import { type LoadBody, loadView, productCounts, publishedEntries } from "./support/Loads.ts"
import { eventually, postJson, request } from "./support/Http.ts"
import { fileOf, formData } from "./support/Multipart.ts"
import { mintToken, TestServer } from "./support/TestServer.ts"

const prefix = `HJT${crypto.randomUUID().slice(0, 8).toUpperCase()}-`

/** Validation threads that exit on their first block, as a thread out of memory would. */
const crashingThreads = JsonValidationPool.make(2, {
  filename: new URL("../services/upload/test/support/crashingValidationThread.ts", import.meta.url).href,
  execArgv: ["--import", "tsx"]
})

describe("JSON validation threads that die", () => {
  layer(TestServer({}, { jsonValidationPool: crashingThreads }), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("POST /v1/handle-json answers 500 StorageFailed, records and publishes nothing, and answers the next upload the same way (no hang)", () =>
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

    it.effect("POST /v1/load-products, which validates on the same threads, validates on the event loop instead and answers as usual", () =>
      Effect.gen(function*() {
        const token = yield* mintToken({ scope: "products:write products:read", company: "ACME" })
        const products = [...sampleProducts(300, { prefix: `${prefix}LP` }), { productCode: "X" }]
        const response = yield* postJson("/v1/load-products", { products }, token)
        expect(response.status).toBe(200)
        const body = response.json() as LoadBody
        expect(body).toMatchObject({ total: 301, processing: 300, failed: 1, errors: [{ sku: "" }] })
        yield* eventually(loadView(body.processCode, token), (view) => view.status === "COMPLETED_WITH_ERRORS")
        expect(yield* productCounts(`${prefix}LP`)).toMatchObject({ products: "300" })
      }))
  })
})
