import { Product, ProductBatch } from "@retail/domain"
import { Database, latestPerCode, LoadRepository, ProductRepository, upsertProducts } from "@retail/store"
import { Effect, Layer, ManagedRuntime, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { readFileSync } from "node:fs"
import { ensureInputs } from "../../parsers/generate.ts"
import { type Benchmark, figure, type Figure } from "../Benchmark.ts"
import { databaseUrl } from "../StoreUrls.ts"
import { copyLimitSeconds } from "../support/CopyLimit.ts"
import { acceptedLoad, loadState, waitCompleted } from "../support/Http.ts"
import { legacyUpsert } from "../support/LegacyUpsert.ts"
import { type ServerHandle, startServer } from "../support/ServerProcess.ts"
import { mintToken, runTag } from "../support/Tokens.ts"
import { uploadFiles } from "../support/Upload.ts"
import { loadFromMetrics, METRICS_ON_PUBLIC_PORT, scrapeServer } from "./MetricsCheck.ts"

/** PRODUCT_BATCH_SIZE's default: the batches the workers persist. */
const BATCH_SIZE = 250
const COMPLETION_TIMEOUT_MS = 15 * 60_000
/** The upsert statements are compared on this many of the load's products (the baseline is slow). */
const UPSERT_SAMPLE = 50_000

const decodeFile = Schema.decodeUnknownSync(Schema.fromJsonString(Schema.Struct({ products: Schema.Array(Product) })), { onExcessProperty: "ignore" })

export const endToEnd: Benchmark = {
  name: "end-to-end",
  description: "A /v1/handle-json load (the handle-json file, seed 42) from its first byte to COMPLETED (every row committed), polling GET /v1/loads/{code} every 50 ms, on servers started with WORKERS 1, 2 and 4. " +
    "Beside each, at the same concurrency and batch size: the COPY-based limit (COPY into staging tables, then one INSERT ... SELECT per table with the dateUpdate guard; support/CopyLimit.ts), " +
    "the workers' own persistBatch called in-process, and the write statement alone against the one persistBatch ran before issue 21 (support/LegacyUpsert.ts).",
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
      ? "Database embedded: each server has its own in-memory PGlite, and persistBatch runs on another one in the runner's process (same engine, same SQL); the COPY limit needs DATABASE_URL and is left out."
      : "Every limit runs against the same PostgreSQL as the servers (DATABASE_URL), each load under a company of its own.")
    setup.note(`The write statements alone (new upsertProducts against the statement before issue 21) are compared on the first ${Math.min(UPSERT_SAMPLE, products.length)} products, one transaction per batch of ${BATCH_SIZE}, nothing else in it.`)
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
          ProductBatch.make({ processCode, company, batchNo, products: products.slice(batchNo * BATCH_SIZE, (batchNo + 1) * BATCH_SIZE) }))
        const start = performance.now()
        yield* Effect.forEach(batches, (batch) => repository.persistBatch(batch), { concurrency, discard: true })
        return (performance.now() - start) / 1000
      }))

    /** One write statement alone: each batch (deduplicated, as persistBatch does) in a transaction of its own, `concurrency` at a time. */
    const upsertAlone = (concurrency: number, write: "new" | "before issue 21") =>
      runtime.runPromise(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const company = `BENCH-${runTag()}`
        const processCode = crypto.randomUUID()
        const sample = products.slice(0, UPSERT_SAMPLE)
        const batches = Array.from({ length: Math.ceil(sample.length / BATCH_SIZE) }, (_, b) => latestPerCode(sample.slice(b * BATCH_SIZE, (b + 1) * BATCH_SIZE)))
        const start = performance.now()
        yield* Effect.forEach(
          batches,
          (batch) =>
            sql.withTransaction(write === "new"
              ? Effect.asVoid(upsertProducts(sql, company, processCode, batch))
              : Effect.asVoid(legacyUpsert(sql, company, processCode, batch))),
          { concurrency, discard: true }
        )
        return sample.length / ((performance.now() - start) / 1000)
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
        const copyLimit = url === undefined
          ? undefined
          : setup.size / (await copyLimitSeconds(url, `BENCH-${runTag()}`, products, { batchSize: BATCH_SIZE, concurrency: workers }))
        const upsertNew = await upsertAlone(workers, "new")
        const upsertBefore = await upsertAlone(workers, "before issue 21")
        setup.progress(
          `WORKERS=${workers}: ${rate.toFixed(0)} products/s to COMPLETED; persistBatch straight ${straight.toFixed(0)}; ` +
            `COPY limit ${copyLimit?.toFixed(0) ?? "-"}; upsert alone ${upsertNew.toFixed(0)} (before issue 21: ${upsertBefore.toFixed(0)})`
        )
        const limit = copyLimit === undefined
          ? { name: `persistBatch in-process, ${workers} at a time`, sample: straight }
          : { name: `COPY-based limit, ${workers} at a time`, sample: copyLimit }
        figures.push(figure(`products/s first byte to COMPLETED, WORKERS=${workers}`, "products/s", rate, { limit }))
        if (copyLimit !== undefined) {
          figures.push(figure(`persistBatch in-process, ${workers} at a time`, "products/s", straight, { limit }))
        }
        figures.push(figure(`write statement alone, ${workers} at a time`, "products/s", upsertNew, {
          limit: { name: `the statement before issue 21, ${workers} at a time`, sample: upsertBefore },
          goal: { on: "ratio", atLeast: 1.5, source: "issue 21: the persist path at least 1.5x" }
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
          limit: { ...bestFigure.limit, name: `${bestFigure.limit.name.replace(/, \d+ at a time$/, "")}, as many at a time as that run's best WORKERS` },
          ...(url === undefined ? {} : { goal: { on: "ratio", atLeast: 0.75, source: "issue 21: first byte to COMPLETED at least 0.75x the COPY limit" } })
        })
      }
      return figures
    }
    return { run, close }
  }
}
