import { expect } from "@effect/vitest"
import type { SampleProduct } from "@retail/testkit"
import { type Duration, Effect } from "effect"
import { loadStatus, postJson, type LoadViewBody } from "./App.ts"
import { waitUntil } from "./Processes.ts"
import { storedProducts } from "./Store.ts"

/** Posts a load that must be accepted whole; answers its process code. */
export const acceptedLoad = (base: string, products: ReadonlyArray<unknown>, bearer: string) =>
  Effect.gen(function*() {
    const response = yield* postJson(base, "/v1/load-products", { products }, bearer)
    expect(response.status, response.text).toBe(200)
    return (response.json() as { processCode: string }).processCode
  })

/** Waits until every load is final, then answers their views. */
export const finalViews = (base: string, processCodes: ReadonlyArray<string>, bearer: string, timeout: Duration.DurationInput = "120 seconds") =>
  Effect.forEach(processCodes, (code) =>
    waitUntil(`load ${code} final`, Effect.flatMap(loadStatus(base, code, bearer), (view): Effect.Effect<LoadViewBody, Error> =>
      view.status === "RECEIVED" || view.status === "PROCESSING" ? Effect.fail(new Error(JSON.stringify(view))) : Effect.succeed(view)), timeout))

/** Every sent product is stored once, exactly as sent, with all of its child rows. */
export const expectStoredExactly = (url: string, company: string, prefix: string, sent: ReadonlyArray<SampleProduct>) =>
  Effect.gen(function*() {
    const stored = yield* storedProducts(url, company, prefix)
    const expected = [...sent].sort((a, b) => (a.productCode < b.productCode ? -1 : 1))
    expect(stored.length).toBe(expected.length)
    expect(stored.map((row) => row.product_code)).toEqual(expected.map((p) => p.productCode))
    stored.forEach((row, i) => {
      const product = expected[i]
      expect(row.document).toEqual(product)
      expect([row.barcodes, row.hierarchies, row.attributes]).toEqual([product?.barcodes.length, product?.hierarchies.length, product?.lstAttributes.length])
    })
  })
