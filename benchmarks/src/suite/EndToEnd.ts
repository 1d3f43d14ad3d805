import { Product, ProductBatch } from "@retail/domain"
import { Database, LoadRepository, ProductRepository } from "@retail/store"
import { Effect, Layer, ManagedRuntime, Option, Schema } from "effect"
import { readFileSync } from "node:fs"
import { ensureInputs } from "../../parsers/generate.ts"
import { type Benchmark, figure, type Figure } from "../Benchmark.ts"
import { databaseUrl } from "../StoreUrls.ts"
import { acceptedLoad, loadState, waitCompleted } from "../support/Http.ts"
import { type ServerHandle, startServer } from "../support/ServerProcess.ts"
import { mintToken, runTag } from "../support/Tokens.ts"
import { uploadFiles } from "../support/Upload.ts"
import { loadFromMetrics, METRICS_ON_PUBLIC_PORT, scrapeServer } from "./MetricsCheck.ts"

/** PRODUCT_BATCH_SIZE's default: the batches the workers persist. */
const BATCH_SIZE = 250
const COMPLETION_TIMEOUT_MS = 15 * 60_000

const decodeFile = Schema.decodeUnknownSync(Schema.fromJsonString(Schema.Struct({ products: Schema.Array(Product) })), { onExcessProperty: "ignore" })

export const endToEnd: Benchmark = {
  name: "end-to-end",
  description: "A /v1/handle-json load (the handle-json file, seed 42) from its first byte to COMPLETED (every row committed), polling GET /v1/loads/{code} every 50 ms, on servers started with WORKERS 1, 2 and 4.",
  sizeUnit: "products in the load",
  defaultSize: 10_000,
  smokeSize: 200,
  open: async (setup) => {
    const workerCounts = setup.scale === "smoke" ? [2] : [1, 2, 4]
    setup.progress(`generating ${setup.size} products (cached in the OS temp dir)`)
    const files = await ensureInputs(setup.size)
    const { products } = decodeFile(readFileSync(files.json, "utf8"))
    const url = databaseUrl()
    setup.note(url === undefined
      ? "Database embedded: each server has its own in-memory PGlite, and the limit runs on another one in the runner's process (same engine, same SQL)."
      : "The limit runs against the same PostgreSQL as the servers (DATABASE_URL), with the workers' own code (ProductRepository.persistBatch).")
    const runtime = ManagedRuntime.make(
      Layer.mergeAll(ProductRepository.layer, LoadRepository.layer).pipe(
        Layer.provideMerge(Database.layer({ url: Option.fromNullishOr(url), dataDir: Database.IN_MEMORY, poolSize: Math.max(...workerCounts) + 1 }))
      )
    )
    const servers = new Map<number, ServerHandle>()
    const bestPerRun: Array<number> = []
    const close = async () => {
      if (bestPerRun.length > 0) setup.note(`Best WORKERS in each run: ${bestPerRun.join(", ")}.`)
      for (const server of servers.values()) await server.stop()
      await runtime.dispose()
    }
    try {
      for (const workers of workerCounts) {
        servers.set(workers, await startServer({ WORKERS: String(workers), RUN_WORKERS: "true", ...METRICS_ON_PUBLIC_PORT }, setup.progress))
      }
      await runtime.runPromise(Effect.void)
    } catch (error) {
      await close()
      throw error
    }

    /** The same rows upserted straight: one load, its batches through persistBatch, `concurrency` at a time. */
    const persistStraight = (concurrency: number) =>
      runtime.runPromise(Effect.gen(function*() {
        const loads = yield* LoadRepository
        const repository = yield* ProductRepository
        const company = `BENCH-${runTag()}`
        const processCode = crypto.randomUUID()
        yield* loads.create({ processCode, company, source: "HANDLE_JSON", received: products.length, accepted: products.length, failed: 0, errors: [] })
        const batches = Array.from({ length: Math.ceil(products.length / BATCH_SIZE) }, (_, batchNo) =>
          new ProductBatch({ processCode, company, batchNo, products: products.slice(batchNo * BATCH_SIZE, (batchNo + 1) * BATCH_SIZE) }))
        const start = performance.now()
        yield* Effect.forEach(batches, (batch) => repository.persistBatch(batch), { concurrency, discard: true })
        return (performance.now() - start) / 1000
      }))

    const run = async (): Promise<ReadonlyArray<Figure>> => {
      const figures: Array<Figure> = []
      let best = { workers: 0, rate: 0 }
      for (const [workers, server] of servers) {
        const token = await mintToken(`BENCH-${runTag()}`)
        const before = await scrapeServer(server)
        const upload = await uploadFiles(`${server.url}/v1/handle-json`, token, [{ name: "productsJson", file: files.json, contentType: "application/json" }])
        const processCode = acceptedLoad({ status: upload.status, text: upload.body }, "POST /v1/handle-json")
        const completedAt = await waitCompleted(server.url, processCode, token, COMPLETION_TIMEOUT_MS)
        const rate = setup.size / ((completedAt - upload.startedAt) / 1000)
        const fromMetrics = loadFromMetrics(`WORKERS=${workers}`, before, await scrapeServer(server), {
          productsPerSecond: rate,
          seconds: (completedAt - upload.startedAt) / 1000,
          persisted: (await loadState(server.url, processCode, token)).totals.persisted
        })
        const straight = setup.size / (await persistStraight(workers))
        setup.progress(`WORKERS=${workers}: ${rate.toFixed(0)} products/s to COMPLETED; persistBatch straight ${straight.toFixed(0)} products/s`)
        figures.push(figure(`products/s first byte to COMPLETED, WORKERS=${workers}`, "products/s", rate, {
          limit: { name: `persistBatch in-process, ${workers} at a time`, sample: straight }
        }))
        figures.push(...fromMetrics)
        if (rate > best.rate) best = { workers, rate }
      }
      bestPerRun.push(best.workers)
      const bestFigure = figures.find((f) => f.name.endsWith(`WORKERS=${best.workers}`))
      if (bestFigure?.limit !== undefined) {
        figures.unshift({
          ...bestFigure,
          name: "products/s first byte to COMPLETED, best WORKERS of the run",
          limit: { ...bestFigure.limit, name: "persistBatch in-process, as many at a time as that run's best WORKERS" }
        })
      }
      return figures
    }
    return { run, close }
  }
}
