import { ProductBatch } from "@retail/domain"
import { Database, latestPerCode, LoadRepository, ProductRepository, upsertProducts } from "@retail/store"
import { Effect, Layer, ManagedRuntime, Option } from "effect"
import { SqlClient } from "effect/sql"
import { WORKER_ROLE } from "../../../scripts/clusterPlan.ts"
import { ensureInputs } from "../../parsers/generate.ts"
import { type Benchmark, figure, type Figure } from "../Benchmark.ts"
import { databaseUrl, redisUrl } from "../StoreUrls.ts"
import { copyLimitSeconds } from "../support/CopyLimit.ts"
import { forgetCompany } from "../support/ForgetRows.ts"
import { acceptedLoad, loadState, waitCompleted } from "../support/Http.ts"
import { legacyUpsert } from "../support/LegacyUpsert.ts"
import { recordedAt } from "../support/LoadRecorded.ts"
import { cpuSharesDuring } from "../support/ProcessCpu.ts"
import { readProductsFile } from "../support/ProductsFile.ts"
import { type ServerHandle, startServer } from "../support/ServerProcess.ts"
import { mintToken, runTag } from "../support/Tokens.ts"
import { uploadFiles } from "../support/Upload.ts"
import { loadFromMetrics, METRICS_ON_PUBLIC_PORT, scrapeServer } from "./MetricsCheck.ts"

/** PRODUCT_BATCH_SIZE's default: the batches the workers persist. */
const BATCH_SIZE = 250
const COMPLETION_TIMEOUT_MS = 15 * 60_000
/** How often the database is asked whether the load was recorded yet (its file received and checked). */
const RECORDED_POLL_MS = 20
/** The upsert statements are compared on this many of the load's products (the baseline is slow). */
const UPSERT_SAMPLE = 50_000

/** Separate worker processes (of WORKERS_PER_PROCESS consumers each, the cluster plan's worker role) beside an API process, as `npm run cluster` runs them. */
const WORKER_PROCESSES = [1, 2] as const
const WORKERS_PER_PROCESS = 2

/** Where a load is sent (`api`) and how many consumers persist it, in how many processes. */
interface Layout {
  readonly label: string
  readonly consumers: number
  readonly api: ServerHandle
  readonly servers: ReadonlyArray<ServerHandle>
  readonly inProcess: boolean
}

const startSeparateWorkers = async (processes: number, progress: (message: string) => void): Promise<Layout> => {
  const tag = runTag()
  const streams = {
    PRODUCT_BATCHES_STREAM: `bench:${tag}:products:batches`,
    LOAD_EVENTS_STREAM: `bench:${tag}:product-loads:events`,
    CAPACITY_EVENTS_STREAM: `bench:${tag}:capacity:events`
  }
  const api = await startServer({ ...streams, RUN_WORKERS: "false" }, progress)
  const workers: Array<ServerHandle> = []
  for (let i = 0; i < processes; i++) {
    workers.push(await startServer({ ...streams, ...WORKER_ROLE.env, WORKERS: String(WORKERS_PER_PROCESS) }, progress, { kind: "suite" }, WORKER_ROLE.nodeFlags))
  }
  return {
    label: `API process + ${processes} worker process${processes === 1 ? "" : "es"} (WORKERS=${WORKERS_PER_PROCESS} each)`,
    consumers: processes * WORKERS_PER_PROCESS,
    api,
    servers: [api, ...workers],
    inProcess: false
  }
}


export const endToEnd: Benchmark = {
  name: "end-to-end",
  description: `A /v1/handle-json load (the handle-json file, seed 42) from its first byte to COMPLETED (every row committed), polling GET /v1/loads/{code} every 50 ms, on servers started with WORKERS 1, 2 and 4, and (with Redis) on an API process with 1 and 2 separate worker processes, started as npm run cluster starts its worker role (scripts/clusterPlan.ts WORKER_ROLE: workers on the event loop, ${WORKER_ROLE.nodeFlags.join(" ")} after npm start's flags). ` +
    "Beside each, at the same concurrency and batch size: the COPY-based limit (COPY into staging tables, then one INSERT ... SELECT per table with the dateUpdate guard; support/CopyLimit.ts), " +
    "the workers' own persistBatch called in-process, and the write statement alone against the one persistBatch ran before issue 21 (support/LegacyUpsert.ts). " +
    "CPU per product over each load: the server processes, every PostgreSQL process of the machine and Redis (/proc; on a quiet machine, these are the load's), and the cores they kept busy; the same for the COPY limit (this process encoding the rows, and PostgreSQL), " +
    "and the best layout's CPU per product against the limit's: where both fill the machine's cores, their rates stand as the inverse of it. " +
    "With DATABASE_URL, each load's phases: receiving (first byte to the load recorded, polled every 20 ms: a file load is recorded once the whole file was read, validated and spooled, and nothing is published before), " +
    "publishing (to the upload's answer) and after the answer (to COMPLETED); and products/s from the load recorded to COMPLETED, where the workers persist, against the same limit.",
  sizeUnit: "products in the load",
  defaultSize: 10_000,
  smokeSize: 200,
  open: async (setup) => {
    const workerCounts = setup.scale === "smoke" ? [2] : [1, 2, 4]
    setup.progress(`generating ${setup.size} products (cached in the OS temp dir)`)
    const files = await ensureInputs(setup.size)
    const products = await readProductsFile(files.json)
    // A million decoded products take about 3.7 GB of the runner's heap; the servers never inherit NODE_OPTIONS.
    const runnerOptions = process.env["NODE_OPTIONS"]
    if (runnerOptions !== undefined && runnerOptions !== "") setup.note(`The runner (its in-process limits too, not the servers) ran with NODE_OPTIONS=${runnerOptions}.`)
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
    const layouts: Array<Layout> = []
    const bestPerRun: Array<string> = []
    const close = async () => {
      if (bestPerRun.length > 0) setup.note(`Best layout in each run: ${bestPerRun.join("; ")}.`)
      for (const layout of layouts) for (const server of layout.servers) await server.stop()
      await runtime.dispose()
    }
    try {
      for (const workers of workerCounts) {
        const server = await startServer({ WORKERS: String(workers), RUN_WORKERS: "true", ...METRICS_ON_PUBLIC_PORT }, setup.progress)
        layouts.push({ label: `WORKERS=${workers}`, consumers: workers, api: server, servers: [server], inProcess: true })
      }
      if (setup.scale === "full" && redisUrl() !== undefined) {
        for (const processes of WORKER_PROCESSES) layouts.push(await startSeparateWorkers(processes, setup.progress))
        setup.note(
          `Separate worker processes (${WORKER_PROCESSES.join(" and ")}, WORKERS=${WORKERS_PER_PROCESS} each): the load goes to an API process started with ` +
            `RUN_WORKERS=false, and worker processes of the cluster plan's worker role (${Object.entries(WORKER_ROLE.env).map(([name, value]) => `${name}=${value}`).join(", ")}; ` +
            `Node.js flags npm start's and ${WORKER_ROLE.nodeFlags.join(" ")}) on the same streams persist it, as \`npm run cluster\` lays them out; the limits are those of the same number of consumers.`
        )
      }
      await runtime.runPromise(Effect.void)
      if (url !== undefined) {
        const [held] = await runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql<{ readonly rows: string; readonly autovacuum: string }>`SELECT count(*)::text AS rows, current_setting('autovacuum') AS autovacuum FROM products`))
        setup.note(
          `The products table held ${Number(held?.rows ?? 0).toLocaleString("en-US")} rows when the run began (autovacuum ${held?.autovacuum ?? "?"}); ` +
            "each load's and limit's rows are deleted once it is measured, the tables vacuumed and a checkpoint asked for (untimed), so every measurement writes into tables of that size. " +
            "Compare runs that began alike: PostgreSQL writes slower into larger tables."
        )
      }
    } catch (error) {
      await close()
      throw error
    }

    /** The same rows upserted straight: one load, its batches through persistBatch, `concurrency` at a time. */
    const persistStraight = (concurrency: number, company: string) =>
      runtime.runPromise(Effect.gen(function*() {
        const loads = yield* LoadRepository
        const repository = yield* ProductRepository
        const processCode = crypto.randomUUID()
        yield* loads.create({ processCode, company, source: "HANDLE_JSON", received: products.length, accepted: products.length, failed: 0, errors: [] })
        const batches = Array.from({ length: Math.ceil(products.length / BATCH_SIZE) }, (_, batchNo) =>
          ProductBatch.make({ processCode, company, batchNo, products: products.slice(batchNo * BATCH_SIZE, (batchNo + 1) * BATCH_SIZE) }))
        const start = performance.now()
        yield* Effect.forEach(batches, (batch) => repository.persistBatch(batch), { concurrency, discard: true })
        return (performance.now() - start) / 1000
      }))

    /** One write statement alone: each batch (deduplicated, as persistBatch does) in a transaction of its own, `concurrency` at a time. */
    const upsertAlone = (concurrency: number, write: "new" | "before issue 21", company: string) =>
      runtime.runPromise(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
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

    /**
     * What one measurement wrote, deleted once it is measured (untimed; support/ForgetRows.ts): every
     * layout and limit then writes into tables as large as they were when the run began. A run used
     * to leave about ten loads' rows behind, and the COPY limit halved over a session's runs.
     */
    const forget = (company: string): Promise<void> => (url === undefined ? Promise.resolve() : runtime.runPromise(forgetCompany(company)))

    /** `measure` under a company of its own, forgotten afterwards, also when the measurement failed (a failure to forget then does not hide its error). */
    const underNewCompany = async <A>(measure: (company: string) => Promise<A>): Promise<A> => {
      const company = `BENCH-${runTag()}`
      let result: A
      try {
        result = await measure(company)
      } catch (error) {
        await forget(company).catch((cleanup: unknown) => setup.progress(`could not delete ${company}'s rows after a failed measurement: ${String(cleanup)}`))
        throw error
      }
      await forget(company)
      return result
    }

    /** Whether `company`'s load has its row yet (support/LoadRecorded.ts). */
    const isRecorded = (company: string) => () =>
      runtime.runPromise(Effect.map(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1 FROM loads WHERE company = ${company} LIMIT 1`), (rows) => rows.length > 0))

    /** The limits at one number of consumers, measured once a run, after the pipeline's loads of that run. */
    const limitsAt = async (consumers: number) => {
      const straight = setup.size / (await underNewCompany((company) => persistStraight(consumers, company)))
      // Its CPU as the loads' is counted: this process encoding the rows (nothing else runs in it meanwhile), and PostgreSQL.
      const copyRun = url === undefined
        ? undefined
        : await underNewCompany((company) => cpuSharesDuring([process.pid], () => copyLimitSeconds(url, company, products, { batchSize: BATCH_SIZE, concurrency: consumers })))
      const copy = copyRun === undefined ? undefined : setup.size / copyRun.result
      const copyCpu = copyRun?.servers === undefined || copyRun.postgres === undefined
        ? undefined
        : { client: copyRun.servers, postgres: copyRun.postgres, seconds: copyRun.result }
      const upsertNew = await underNewCompany((company) => upsertAlone(consumers, "new", company))
      const upsertBefore = await underNewCompany((company) => upsertAlone(consumers, "before issue 21", company))
      setup.progress(
        `${consumers} at a time: persistBatch straight ${straight.toFixed(0)} products/s; COPY limit ${copy?.toFixed(0) ?? "-"}; ` +
          `write statement alone ${upsertNew.toFixed(0)} (before issue 21: ${upsertBefore.toFixed(0)})`
      )
      const limit = copy === undefined
        ? { name: `persistBatch in-process, ${consumers} at a time`, sample: straight }
        : { name: `COPY-based limit, ${consumers} at a time`, sample: copy }
      const figures = [
        ...(copy === undefined ? [] : [figure(`persistBatch in-process, ${consumers} at a time`, "products/s", straight, { limit })]),
        ...(copyCpu === undefined ? [] : [
          figure(`CPU per product, COPY-based limit ${consumers} at a time, its client (encoding the rows)`, "µs", (copyCpu.client * 1e6) / setup.size, { better: "lower" }),
          figure(`CPU per product, COPY-based limit ${consumers} at a time, PostgreSQL`, "µs", (copyCpu.postgres * 1e6) / setup.size, { better: "lower" }),
          // /proc counts in ticks of 10 ms: a smoke-sized limit may show none.
          ...(copyCpu.client + copyCpu.postgres > 0
            ? [figure(`cores busy, COPY-based limit ${consumers} at a time (its client and PostgreSQL)`, "cores", (copyCpu.client + copyCpu.postgres) / copyCpu.seconds)]
            : [])
        ]),
        figure(`write statement alone, ${consumers} at a time`, "products/s", upsertNew, {
          limit: { name: `the statement before issue 21, ${consumers} at a time`, sample: upsertBefore },
          goal: { on: "ratio", atLeast: 1.5, source: "issue 21: the persist path at least 1.5x" }
        })
      ]
      const cpuPerProduct = copyCpu === undefined ? undefined : ((copyCpu.client + copyCpu.postgres) * 1e6) / setup.size
      return { limit, figures, cpuPerProduct }
    }

    const run = async (): Promise<ReadonlyArray<Figure>> => {
      const figures: Array<Figure> = []
      const measured: Array<{
        readonly layout: Layout
        readonly rate: number
        readonly persistingRate: number | undefined
        /** µs a product: the servers, and PostgreSQL with Redis; the cores all of them kept busy. */
        readonly cpu: { readonly servers: number; readonly others: number; readonly coresBusy: number } | undefined
      }> = []
      for (const layout of layouts) {
        await underNewCompany(async (company) => {
          const token = await mintToken(company)
          const before = layout.inProcess ? await scrapeServer(layout.api) : undefined
          const { result: { upload, processCode, completedAt, recorded }, ...cpu } = await cpuSharesDuring(layout.servers.map((server) => server.pid), async () => {
            const uploading = uploadFiles(`${layout.api.url}/v1/handle-json`, token, [{ name: "productsJson", file: files.json, contentType: "application/json" }])
            const recording = url === undefined
              ? undefined
              : recordedAt(isRecorded(company), uploading.then((upload) => ({ answeredAt: upload.startedAt + upload.seconds * 1000 })), RECORDED_POLL_MS)
            const [upload, recorded] = await Promise.all([uploading, recording])
            const processCode = acceptedLoad({ status: upload.status, text: upload.body }, "POST /v1/handle-json")
            return { upload, processCode, recorded, completedAt: await waitCompleted(layout.api.url, processCode, token, COMPLETION_TIMEOUT_MS) }
          })
          const rate = setup.size / ((completedAt - upload.startedAt) / 1000)
          const answeredAt = upload.startedAt + upload.seconds * 1000
          const persistingRate = recorded === undefined ? undefined : setup.size / ((completedAt - recorded) / 1000)
          setup.progress(
            `${layout.label}: ${rate.toFixed(0)} products/s first byte to COMPLETED` +
              (recorded === undefined ? "" : `; received in ${((recorded - upload.startedAt) / 1000).toFixed(1)} s, then ${persistingRate?.toFixed(0)} products/s to COMPLETED`)
          )
          const everyParty = cpu.servers === undefined || cpu.postgres === undefined ? undefined : cpu.servers + cpu.postgres + (cpu.redis ?? 0)
          measured.push({
            layout,
            rate,
            persistingRate,
            cpu: everyParty === undefined || cpu.servers === undefined
              ? undefined
              : {
                servers: (cpu.servers * 1e6) / setup.size,
                others: ((everyParty - cpu.servers) * 1e6) / setup.size,
                coresBusy: everyParty / ((completedAt - upload.startedAt) / 1000)
              }
          })
          if (recorded !== undefined) {
            figures.push(
              figure(`seconds receiving (first byte to the load recorded: file read, validated, spooled), ${layout.label}`, "s", (recorded - upload.startedAt) / 1000, { better: "lower" }),
              figure(`seconds publishing (load recorded to the upload's answer), ${layout.label}`, "s", (answeredAt - recorded) / 1000, { better: "lower" }),
              figure(`seconds after the answer (to COMPLETED), ${layout.label}`, "s", (completedAt - answeredAt) / 1000, { better: "lower" })
            )
          }
          for (const [part, seconds] of [["the servers", cpu.servers], ["PostgreSQL", cpu.postgres], ["Redis", cpu.redis]] as const) {
            if (seconds !== undefined) {
              figures.push(figure(`CPU per product, ${part}, ${layout.label}`, "µs", (seconds * 1e6) / setup.size, { better: "lower" }))
            }
          }
          if (everyParty !== undefined && everyParty > 0) {
            figures.push(figure(`cores busy, first byte to COMPLETED (the servers, PostgreSQL and Redis), ${layout.label}`, "cores", everyParty / ((completedAt - upload.startedAt) / 1000)))
          }
          if (before !== undefined) {
            figures.push(...loadFromMetrics(layout.label, before, await scrapeServer(layout.api), {
              productsPerSecond: rate,
              seconds: (completedAt - upload.startedAt) / 1000,
              persisted: (await loadState(layout.api.url, processCode, token)).totals.persisted
            }))
          }
        })
      }
      const limits = new Map<number, Awaited<ReturnType<typeof limitsAt>>>()
      for (const consumers of new Set(layouts.map((layout) => layout.consumers))) limits.set(consumers, await limitsAt(consumers))
      for (const { layout, rate, persistingRate } of measured) {
        const limit = limits.get(layout.consumers)!.limit
        figures.push(figure(`products/s first byte to COMPLETED, ${layout.label}`, "products/s", rate, { limit }))
        if (persistingRate !== undefined) figures.push(figure(`products/s from the load recorded to COMPLETED (publishing and persisting), ${layout.label}`, "products/s", persistingRate, { limit }))
      }
      for (const { figures: limitFigures } of limits.values()) figures.push(...limitFigures)
      const best = measured.reduce((a, b) => (b.rate > a.rate ? b : a))
      bestPerRun.push(best.layout.label)
      const bestFigure = figures.find((f) => f.name === `products/s first byte to COMPLETED, ${best.layout.label}`)
      if (bestFigure?.limit !== undefined) {
        figures.unshift({
          ...bestFigure,
          name: "products/s first byte to COMPLETED, best layout of the run",
          limit: { ...bestFigure.limit, name: `${bestFigure.limit.name.replace(/, \d+ at a time$/, "")}, as many at a time as that run's best layout has consumers` },
          ...(url === undefined ? {} : { goal: { on: "ratio", atLeast: 0.75, source: "issue 21: first byte to COMPLETED at least 0.75x the COPY limit" } })
        })
      }
      // On a machine whose cores both the pipeline and the limit fill, their rates stand as the inverse of their CPU per product.
      const limitCpu = limits.get(best.layout.consumers)?.cpuPerProduct
      const limitRate = bestFigure?.limit?.samples[0]
      if (best.cpu !== undefined && limitCpu !== undefined && limitRate !== undefined) {
        // What 0.75x of the limit leaves the servers, with the cores as busy as in this load and PostgreSQL and Redis as they were.
        const allowed = (best.cpu.coresBusy * 1e6) / (0.75 * limitRate) - best.cpu.others
        figures.splice(
          1,
          0,
          figure("CPU per product, every party (the servers, PostgreSQL, Redis), best layout of the run", "µs", best.cpu.servers + best.cpu.others, {
            better: "lower",
            limit: { name: "CPU per product of the COPY-based limit (its client and PostgreSQL), as many at a time as that run's best layout has consumers", sample: limitCpu }
          }),
          // Nothing left (PostgreSQL and Redis alone past the budget, as a smoke-sized load may be): no budget to show.
          ...(allowed > 0
            ? [figure("CPU per product, the servers, best layout of the run", "µs", best.cpu.servers, {
              better: "lower",
              limit: { name: "what 0.75x of the COPY limit leaves them, at the cores the load kept busy and PostgreSQL's and Redis's CPU a product as measured", sample: allowed }
            })]
            : [])
        )
      }
      return figures
    }
    return { run, close }
  }
}
