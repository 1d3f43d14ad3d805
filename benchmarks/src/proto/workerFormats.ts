/**
 * Issue 21, binary batches: the real batch workers (the npm start bundle, WORKERS=2 on its persist
 * thread) persisting the same products from Redis entries of each format, in alternating rounds.
 * The runner creates each load and publishes its batches straight onto the server's stream (as the
 * API would, 8 to a MULTI), then waits for COMPLETED; the CPU of the server process, of PostgreSQL
 * and of Redis over that window is divided by the products.
 *   DATABASE_URL=... REDIS_URL=... npx tsx benchmarks/src/proto/workerFormats.ts [products per round] [rounds]
 */
import { Product, ProductBatch } from "@retail/domain"
import { RedisStreamQueue, StreamQueue } from "@retail/queue"
import { columnsEntry } from "@retail/service-upload"
import { BinaryArrayWriter, Database, encodeBatch, LoadRepository } from "@retail/store"
import { Effect, Layer, ManagedRuntime, Option, Schema } from "effect"
import { readFileSync } from "node:fs"
import { loadavg } from "node:os"
import { ensureInputs } from "../../parsers/generate.ts"
import { cpuSharesDuring } from "../support/ProcessCpu.ts"
import { killStartedServers, startServer } from "../support/ServerProcess.ts"
import { runTag } from "../support/Tokens.ts"

const perRound = Number(process.argv[2] ?? 50_000)
const rounds = Number(process.argv[3] ?? 3)
const BATCH = 250
const GROUP = 8

const decodeFile = Schema.decodeUnknownSync(Schema.fromJsonString(Schema.Struct({ products: Schema.Array(Product) })), { onExcessProperty: "ignore" })
const all = decodeFile(readFileSync((await ensureInputs(200_000)).json, "utf8")).products

const stream = `bench:${runTag()}:products:batches`
const server = await startServer({ RUN_WORKERS: "true", WORKERS: "2", PRODUCT_BATCHES_STREAM: stream, LOAD_RECONCILE_INTERVAL_MS: "600000" }, console.log)
process.on("exit", killStartedServers)

const runtime = ManagedRuntime.make(
  Layer.mergeAll(LoadRepository.layer, RedisStreamQueue.layer({ url: process.env["REDIS_URL"]! })).pipe(
    Layer.provideMerge(Database.layer({ url: Option.some(process.env["DATABASE_URL"]!), dataDir: "memory://", poolSize: 2 }))
  )
)

const round = async (format: "json" | "columns", r: number) => {
  const from = (r * perRound) % all.length
  const products = all.slice(from, from + perRound)
  const company = `FMT-${runTag()}`
  const processCode = crypto.randomUUID()
  const writer = new BinaryArrayWriter()
  const entries: Array<string> = []
  for (let b = 0; b * BATCH < products.length; b++) {
    const batch = ProductBatch.make({ processCode, company, batchNo: b, products: products.slice(b * BATCH, (b + 1) * BATCH) })
    entries.push(format === "json" ? JSON.stringify(batch) : columnsEntry(encodeBatch({ processCode, company, batchNo: b }, batch.products, writer)))
  }
  const bytes = entries.reduce((n, e) => n + Buffer.byteLength(e), 0)
  const waitCompleted = Effect.gen(function*() {
    const loads = yield* LoadRepository
    for (;;) {
      const load = Option.getOrThrow(yield* loads.find(processCode))
      if (load.status === "COMPLETED") return
      if (load.status === "FAILED" || load.status === "COMPLETED_WITH_ERRORS") throw new Error(`load ${load.status}`)
      yield* Effect.sleep("20 millis")
    }
  })
  const t0 = performance.now()
  const shares = await cpuSharesDuring([server.pid], () =>
    runtime.runPromise(Effect.gen(function*() {
      const loads = yield* LoadRepository
      const queue = yield* StreamQueue
      yield* loads.create({ processCode, company, source: "HANDLE_JSON", received: products.length, accepted: products.length, failed: 0, errors: [] })
      for (let g = 0; g < entries.length; g += GROUP) yield* queue.publish(stream, entries.slice(g, g + GROUP))
      yield* waitCompleted
    })))
  const seconds = (performance.now() - t0) / 1000
  const per = (cpu: number | undefined) => (cpu === undefined ? "-" : ((cpu * 1e6) / products.length).toFixed(1))
  console.log(
    `${format.padEnd(7)} round ${r}: ${(products.length / seconds).toFixed(0)} products/s queue to COMPLETED; CPU µs/product server ${per(shares.servers)}, ` +
      `PostgreSQL ${per(shares.postgres)}, Redis ${per(shares.redis)}; ${(bytes / products.length).toFixed(0)} B/product on the queue; ` +
      `load ${loadavg().map((l) => l.toFixed(2)).join(" ")}`
  )
}

try {
  await round("json", 90)
  await round("columns", 91)
  for (let r = 0; r < rounds; r++) {
    await round("json", r)
    await round("columns", r)
  }
} finally {
  await runtime.dispose()
  await server.stop()
}
