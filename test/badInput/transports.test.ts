import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Http from "node:http"
import { request } from "../support/Http.ts"
import { publishedEntries } from "../support/Loads.ts"
import { fileOf, formData } from "../support/Multipart.ts"
import { baseUrl, mintToken, TestServer } from "../support/TestServer.ts"

const run = crypto.randomUUID().slice(0, 8).toUpperCase()

/** A small products document touching every JSON token: strings with escapes, numbers, true/false/null, nesting. */
const small = JSON.stringify({
  products: [
    { productCode: `TR${run}-1`, skuCode: "S\"1\\é\u00e9", price: -1.5e3, measurable: true, companyCode: null, hierarchies: [{ hierarchyLevel: 1 }] },
    { productCode: `TR${run}-2`, barcodes: [], lstAttributes: [[], {}], weight: 0, isEcommerce: false }
  ]
})

interface Refusal {
  readonly status: number
  readonly message: string
}

const refusal = (response: { readonly status: number; readonly text: string }): Refusal => {
  const body = JSON.parse(response.text) as { readonly message?: unknown }
  return { status: response.status, message: typeof body.message === "string" ? body.message : "" }
}

describe("broken transports", () => {
  layer(TestServer({ TOKEN_RATE_LIMIT_PER_SECOND: "0" }), { timeout: 300_000, excludeTestServices: true })((it) => {
    const loadProducts = (token: string, body: string | Uint8Array, contentType = "application/json") =>
      request("/v1/load-products", { token, body, headers: { "content-type": contentType } })
    const handleJson = (token: string, file: string | Uint8Array) =>
      request("/v1/handle-json", { token, body: formData([["productsJson", new Blob([file], { type: "application/json" })]]) })

    it.effect("JSON truncated at every offset is 400 saying so on both endpoints, and nothing is published", () =>
      Effect.gen(function*() {
        const token = yield* mintToken()
        const before = yield* publishedEntries
        for (let offset = 0; offset < small.length; offset++) {
          const cut = small.slice(0, offset)
          const direct = refusal(yield* loadProducts(token, cut))
          expect({ offset, ...direct }).toMatchObject({
            offset,
            status: 400,
            message: expect.stringMatching(offset === 0 ? /^The request body is empty/ : /^The request body is not valid JSON/)
          })
          const file = refusal(yield* handleJson(token, cut))
          expect({ offset, ...file }).toMatchObject({
            offset,
            status: 400,
            message: expect.stringMatching(/^productsJson is not a well-formed products file: .+|^productsJson is empty/)
          })
        }
        expect(yield* publishedEntries).toBe(before)
        // The whole document is taken (its products fail validation, so nothing is published either).
        expect((yield* loadProducts(token, small)).status).toBe(200)
        expect((yield* handleJson(token, small)).status).toBe(200)
      }))

    it.effect("invalid UTF-8, 100,000 levels of nesting and an empty file are 400 and publish nothing", () =>
      Effect.gen(function*() {
        const token = yield* mintToken()
        const before = yield* publishedEntries
        const invalidUtf8 = new Uint8Array([...new TextEncoder().encode("{\"products\":[{\"skuCode\":\""), 0xc3, 0x28, ...new TextEncoder().encode("\"}]}")])
        const deep = `{"products":[${"[".repeat(100_000)}${"]".repeat(100_000)}]}`
        expect(refusal(yield* loadProducts(token, invalidUtf8))).toEqual({ status: 400, message: "The request body is not valid UTF-8" })
        expect(refusal(yield* handleJson(token, invalidUtf8))).toMatchObject({ status: 400, message: expect.stringMatching(/^productsJson is not a well-formed products file: .*UTF-8/) })
        expect(refusal(yield* loadProducts(token, deep))).toEqual({ status: 400, message: "The request body is nested deeper than 64 levels" })
        expect(refusal(yield* handleJson(token, deep))).toMatchObject({
          status: 400,
          message: expect.stringMatching(/^productsJson is not a well-formed products file: product 0 is nested deeper than 64 levels at byte 77 /)
        })
        expect(refusal(yield* handleJson(token, ""))).toMatchObject({ status: 400, message: expect.stringMatching(/^productsJson is (empty|not a well-formed)/) })
        expect(yield* publishedEntries).toBe(before)
      }))

    it.effect("a multipart body without boundary, a wrong part name, a 0-byte body or a wrong Content-Type is a 4xx naming it", () =>
      Effect.gen(function*() {
        const token = yield* mintToken()
        const before = yield* publishedEntries
        // Each on its own connection: some of these are answered before their body is read, or after seconds.
        const raw = (path: string, body: string, contentType?: string) =>
          Effect.flatMap(baseUrl, (base) =>
            Effect.promise(() =>
              new Promise<{ status: number; text: string }>((resolve, reject) => {
                const req = Http.request(new URL(path, base), {
                  method: "POST",
                  agent: false,
                  headers: { authorization: `Bearer ${token}`, "content-length": Buffer.byteLength(body), ...(contentType === undefined ? {} : { "content-type": contentType }) }
                }, (response) => {
                  let text = ""
                  response.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")))
                  response.on("end", () => resolve({ status: response.statusCode ?? 0, text }))
                })
                req.on("error", reject)
                req.end(body)
              })
            ))
        const cases: ReadonlyArray<readonly [string, { status: number; text: string }, number, RegExp]> = [
          ["multipart without boundary", yield* raw("/v1/handle-json", "--x\r\n\r\n", "multipart/form-data"), 400, /must name its boundary/],
          ["wrong part name", yield* request("/v1/handle-json", { token, body: formData([["products", fileOf("[]")]]) }), 400, /The file part products is not taken by this endpoint \(it takes file parts: productsJson\)/],
          // Bodies that end before their closing boundary: answered at once, not when the client gives up.
          ["0-byte multipart body", yield* raw("/v1/handle-json", "", "multipart/form-data; boundary=x"), 400, /^The multipart\/form-data body ends before its closing boundary$/],
          ["multipart cut in a file part", yield* raw("/v1/handle-json", "--x\r\nContent-Disposition: form-data; name=\"productsJson\"; filename=\"p.json\"\r\n\r\n[]", "multipart/form-data; boundary=x"), 400, /^The multipart\/form-data body ends before its closing boundary$/],
          ["multipart without parts", yield* raw("/v1/handle-json", "--x--\r\n", "multipart/form-data; boundary=x"), 400, /^The multipart part productsJson \(a file\) is required$/],
          ["0-byte JSON body", yield* raw("/v1/load-products", "", "application/json"), 400, /The request body is empty/],
          ["JSON to the file endpoint", yield* raw("/v1/handle-json", "[]", "application/json"), 415, /Content-Type must be multipart\/form-data \(got application\/json\)/],
          ["form to the JSON endpoint", yield* raw("/v1/load-products", "products=1", "application/x-www-form-urlencoded"), 415, /Content-Type must be application\/json/],
          ["no Content-Type", yield* raw("/v1/load-products", "{\"products\":[]}"), 415, /Content-Type must be application\/json \(got none\)/]
        ]
        for (const [name, response, status, message] of cases) {
          expect({ name, ...refusal(response) }).toMatchObject({ name, status, message: expect.stringMatching(message) })
        }
        expect(yield* publishedEntries).toBe(before)
      }))
  })
})
