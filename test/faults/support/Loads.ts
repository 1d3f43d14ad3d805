import { expect } from "@effect/vitest"
import type { SampleProduct } from "@retail/testkit"
import { type Duration, Effect } from "effect"
import { call, loadStatus, postJson, type LoadViewBody } from "./App.ts"
import type { streams } from "./Lab.ts"
import { waitUntil } from "./Processes.ts"
import { pendingEntries, streamLength } from "./Redis.ts"
import { recordedBatches, storedProducts } from "./Store.ts"

/** Posts a load that must be accepted whole; answers its process code. */
export const acceptedLoad = (base: string, products: ReadonlyArray<unknown>, bearer: string) =>
  Effect.gen(function*() {
    const response = yield* postJson(base, "/v1/load-products", { products }, bearer)
    expect(response.status, response.text).toBe(200)
    return (response.json() as { processCode: string }).processCode
  })

/** Sends the products as one `/v1/handle-json` file that must be accepted whole; answers its process code. */
export const acceptedFileLoad = (base: string, products: ReadonlyArray<unknown>, bearer: string) =>
  Effect.gen(function*() {
    const form = new FormData()
    form.append("productsJson", new Blob([JSON.stringify({ products })], { type: "application/json" }), "products.json")
    const response = yield* call(base, "/v1/handle-json", { method: "POST", headers: { authorization: `Bearer ${bearer}` }, body: form })
    expect(response.status, response.text).toBe(200)
    return (response.json() as { processCode: string }).processCode
  })

/** Waits until every load is final, then answers their views. */
export const finalViews = (base: string, processCodes: ReadonlyArray<string>, bearer: string, timeout: Duration.Input = "120 seconds") =>
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

/** A load the server answered 200, with the products it was sent. */
export interface SentLoad {
  readonly processCode: string
  readonly products: ReadonlyArray<SampleProduct>
}

export interface Drained {
  readonly base: string
  readonly bearer: string
  readonly postgresUrl: string
  readonly redisUrl: string
  readonly streams: ReturnType<typeof streams>
  readonly company: string
  /** Starts the productCode of every product of `loads`; every other stored product of the company with it is one too many. */
  readonly prefix: string
  /** PRODUCT_BATCH_SIZE of the server that published the loads. */
  readonly batchSize: number
  readonly loads: ReadonlyArray<SentLoad>
}

/**
 * The end state a drill must reach: every load COMPLETED with all of its products persisted and
 * none failed; every product in PostgreSQL once, exactly the document sent (and no product of the
 * prefix that was not accepted); one PERSISTED `load_batches` row per published batch; no dead
 * letter, and within 20 s no pending entry and nothing left in the batches stream.
 */
export const expectPersistedOnce = (drained: Drained, timeout: Duration.Input = "120 seconds") =>
  Effect.gen(function*() {
    const views = yield* finalViews(drained.base, drained.loads.map((load) => load.processCode), drained.bearer, timeout)
    views.forEach((view, i) => {
      const count = drained.loads[i]?.products.length
      expect(view.status, JSON.stringify(view)).toBe("COMPLETED")
      expect(view.totals, JSON.stringify(view)).toEqual({ received: count, accepted: count, persisted: count, failed: 0 })
    })
    yield* expectStoredExactly(drained.postgresUrl, drained.company, drained.prefix, drained.loads.flatMap((load) => load.products))
    const batches = yield* recordedBatches(drained.postgresUrl)
    for (const load of drained.loads) {
      const rows = batches.filter((batch) => batch.process_code === load.processCode)
      expect(rows.length, `batches of ${load.processCode}`).toBe(Math.ceil(load.products.length / drained.batchSize))
      expect(rows.filter((batch) => batch.outcome !== "PERSISTED")).toEqual([])
      expect(rows.reduce((sum, batch) => sum + batch.products, 0)).toBe(load.products.length)
    }
    const { PRODUCT_BATCHES_STREAM: stream, PRODUCT_CONSUMER_GROUP: group } = drained.streams
    // An entry is acknowledged after its batch commits, so it can outlive COMPLETED: a worker killed
    // between the two leaves it pending until another claims it (CLAIM_IDLE_MS) and acknowledges it
    // as already recorded. The stream empties within that bound.
    yield* waitUntil("the batches stream empty, nothing pending", Effect.flatMap(
      Effect.all([pendingEntries(drained.redisUrl, stream, group), streamLength(drained.redisUrl, stream)]),
      ([pending, length]) => pending.length === 0 && length === 0 ? Effect.void : Effect.fail(new Error(`${pending.length} pending, ${length} in the stream`))
    ), "20 seconds")
    expect(yield* streamLength(drained.redisUrl, `${stream}:dead`)).toBe(0)
  })
