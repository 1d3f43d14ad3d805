import { describe, expect, it } from "@effect/vitest"
import { sampleProducts } from "@retail/testkit"
import { Effect } from "effect"
import { objectBomb, send, severalAtOnce } from "./support/HostileBodies.ts"
import { formData } from "./support/Multipart.ts"
import { startServerProcess } from "./support/ServerProcess.ts"
import { mintToken } from "./support/TestServer.ts"

const MIB = 1024 * 1024
/** Just under the scanner's 16 MiB per element, so that only the values can refuse it. */
const ELEMENT_BYTES = 16 * MIB - 64

/** A products file whose second product is ~5.6 M empty objects (~370 MB for JSON.parse), or a value beside the products that is. */
const hostileFile = (where: "product" | "beside"): Blob => {
  const valid = JSON.stringify(sampleProducts(1, { prefix: `HOSTILE-ELEMENT${Date.now()}-` })[0])
  const text = where === "product"
    ? Buffer.concat([Buffer.from(`{"products":[${valid},`), objectBomb(ELEMENT_BYTES, "{\"productCode\":\"x\",\"junk\":[", "]}"), Buffer.from("]}")])
    : Buffer.concat([Buffer.from("{\"metadata\":"), objectBomb(ELEMENT_BYTES, "[", "]"), Buffer.from(`,"products":[${valid}]}`)])
  return new Blob([text], { type: "application/json" })
}

describe.each(["0", "2"])("JSON files with a product of millions of tiny values, four at a time (npm start's heap, JSON_VALIDATION_THREADS=%s)", (threads) => {
  it.live("each is refused naming the limit, and the server keeps answering", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* startServerProcess({ JSON_VALIDATION_THREADS: threads, RUN_WORKERS: "true" })
      const token = yield* mintToken({ scope: "products:write products:read", company: "ACME" })
      const url = `${server.baseUrl}/v1/handle-json`
      const upload = (file: Blob) => ({ method: "POST", headers: { authorization: `Bearer ${token}` }, body: formData([["productsJson", file]]) })
      const products = hostileFile("product")
      const beside = hostileFile("beside")

      const answers = yield* severalAtOnce(4, url, () => upload(products))
      for (const answer of answers) {
        expect(answer, server.output().slice(-2000)).toEqual({
          status: 400,
          text: expect.stringMatching(/product 1 has more than \d+ JSON values \(PRODUCT_MAX_VALUES\)/)
        })
      }
      const besides = yield* severalAtOnce(4, url, () => upload(beside))
      for (const answer of besides) {
        expect(answer, server.output().slice(-2000)).toEqual({
          status: 400,
          text: expect.stringMatching(/a value has more than \d+ JSON values \(PRODUCT_MAX_VALUES\)/)
        })
      }

      expect(server.child.exitCode, server.output().slice(-2000)).toBeNull()
      const normal = yield* send(url, upload(new Blob([JSON.stringify({ products: sampleProducts(100, { prefix: `AFTER${Date.now()}-` }) })])))
      expect(normal, server.output().slice(-2000)).toEqual({ status: 200, text: expect.stringContaining("100 products are being processed") })
    })), { timeout: 300_000 })
})
