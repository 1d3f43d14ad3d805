import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { request } from "./support/Http.ts"
import { mintToken, TestServer } from "./support/TestServer.ts"

const KEY = "test-error-bodies-key"
const key = { authorization: `Bearer ${KEY}` }
const json = { "content-type": "application/json" }

describe("error bodies are the spec's ErrorMessage, {message} and nothing else", () => {
  layer(TestServer({ CAPACITY_API_KEYS: KEY, REQUEST_MAX_BYTES: "2048" }), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("each error class of the contract answers {message} without _tag", () =>
      Effect.gen(function*() {
        const token = yield* mintToken()
        const answers = [
          yield* request("/v1/load-products", { token, headers: json, body: JSON.stringify({ products: "none" }) }),
          yield* request(`/v1/loads/${crypto.randomUUID()}`, { token }),
          yield* request("/v1/load-products", { token, headers: { "content-type": "text/csv" }, body: "a,b" }),
          yield* request("/v1/network", { method: "PUT", headers: { ...key, ...json }, body: JSON.stringify({ pad: "x".repeat(4096) }) }),
          yield* request("/v1/delivery/capacity/consumptions/no-such-order", { method: "DELETE", headers: key })
        ]
        expect(answers.map((answer) => answer.status)).toEqual([400, 404, 415, 413, 404])
        for (const answer of answers) {
          expect(answer.headers.get("content-type"), answer.text).toMatch(/^application\/json/)
          expect(Object.keys(answer.json() as object), answer.text).toEqual(["message"])
        }
      }))

    it.effect("a request the contract cannot decode is 400 {message} naming where, the field and why; a body that is not JSON says so", () =>
      Effect.gen(function*() {
        const missing = yield* request("/v1/delivery/capacity/consumptions", { headers: { ...key, ...json }, body: JSON.stringify({ orderId: "o-1" }) })
        expect(missing.status).toBe(400)
        expect(Object.keys(missing.json() as object)).toEqual(["message"])
        expect((missing.json() as { message: string }).message).toMatch(/^Invalid request: body field dispatchCode: is missing/)

        const badDate = yield* request("/v1/delivery/capacity/nodes/CD-LURIN?from=soon&to=2027-03-02", { headers: key })
        expect(badDate.status).toBe(400)
        expect(badDate.json()).toEqual({ message: expect.stringMatching(/^Invalid request: query parameter from: /) })

        const notJson = yield* request("/v1/delivery/capacity/consumptions", { headers: { ...key, ...json }, body: "{\"orderId\":" })
        expect({ status: notJson.status, body: notJson.json() }).toEqual({
          status: 400,
          body: { message: "Invalid request: the body is not valid JSON" }
        })
      }))
  })
})
