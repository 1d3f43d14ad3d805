/**
 * persistBatch throughput with batches of 500 sample products (~1.6 KB, 7 children each).
 * Run: npx tsx packages/store/bench/persistBatch.ts [batches] [concurrency]
 * With DATABASE_URL: that PostgreSQL; without: embedded PGlite in memory.
 */
import { Product, ProductBatch } from "@retail/domain"
import { sampleProducts } from "@retail/testkit"
import { Effect, Layer, Option, Schema } from "effect"
import { Database, LoadRepository, ProductRepository } from "../src/index.ts"

const BATCH = 500
const batches = Number(process.argv[2] ?? 20)
const concurrency = Number(process.argv[3] ?? 1)
const url = Option.fromNullishOr(process.env["DATABASE_URL"]).pipe(Option.filter((u) => u !== ""))
const decode = Schema.decodeUnknownSync(Schema.Array(Product))

const run = Effect.gen(function* () {
  const loads = yield* LoadRepository
  const repo = yield* ProductRepository
  const tag = crypto.randomUUID().slice(0, 8)
  const company = `BENCH-${tag}`
  const products = Array.from({ length: batches }, (_, b) => decode(sampleProducts(BATCH, { company, prefix: `B${tag}-`, from: b * BATCH })))
  const round = (label: string) =>
    Effect.gen(function* () {
      const load = yield* loads.create({
        processCode: crypto.randomUUID(), company, source: "LOAD_PRODUCTS",
        received: batches * BATCH, accepted: batches * BATCH, failed: 0, errors: []
      })
      const start = performance.now()
      yield* Effect.forEach(
        products,
        (items, batchNo) => repo.persistBatch(ProductBatch.make({ processCode: load.processCode, company, batchNo, products: items })),
        { concurrency, discard: true }
      )
      const seconds = (performance.now() - start) / 1000
      const status = Option.map(yield* loads.find(load.processCode), (view) => view.status)
      console.log(`${label}: ${batches} x ${BATCH} products in ${seconds.toFixed(2)} s = ${Math.round((batches * BATCH) / seconds)} products/s (${(seconds * 1000 / batches).toFixed(0)} ms/batch), load ${Option.getOrElse(status, () => "?")}`)
    })
  yield* round("insert ")
  yield* round("rewrite")
})

const layer = Layer.mergeAll(ProductRepository.layer, LoadRepository.layer).pipe(
  Layer.provideMerge(Database.layer({ url, dataDir: Database.IN_MEMORY, poolSize: Math.max(4, concurrency) }))
)
console.log(`${Option.isSome(url) ? "PostgreSQL" : "PGlite (memory)"}, concurrency ${concurrency}`)
await Effect.runPromise(Effect.scoped(Effect.provide(run, layer)))
