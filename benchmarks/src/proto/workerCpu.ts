/**
 * Prototype measurement (issue 21, binary batches): a batch worker's CPU per product, in this process,
 * persisting the same products from today's JSON entries (decodeProductBatch + persistBatch) and from
 * entries encoded at intake as binary column arrays (decodeEncodedBatch + persistEncodedBatch), in
 * alternating rounds against the same PostgreSQL. Also the intake's cost of encoding.
 *   DATABASE_URL=... npx tsx benchmarks/src/proto/workerCpu.ts [products per round] [rounds] [concurrency]
 */
import { decodeProductBatch, Product, type ProductBatch } from "@retail/domain"
import { BinaryArrayWriter, Database, decodeEncodedBatch, encodeBatch, LoadRepository, ProductRepository } from "@retail/store"
import { Effect, Layer, ManagedRuntime, Option, Schema } from "effect"
import { readFileSync } from "node:fs"
import { loadavg } from "node:os"
import { ensureInputs } from "../../parsers/generate.ts"

const perRound = Number(process.argv[2] ?? 40_000)
const rounds = Number(process.argv[3] ?? 3)
const concurrency = Number(process.argv[4] ?? 2)
const BATCH = 250

const decodeFile = Schema.decodeUnknownSync(Schema.fromJsonString(Schema.Struct({ products: Schema.Array(Product) })), { onExcessProperty: "ignore" })
const files = await ensureInputs(200_000)
const all = decodeFile(readFileSync(files.json, "utf8")).products

const runtime = ManagedRuntime.make(
  Layer.mergeAll(ProductRepository.layer, LoadRepository.layer).pipe(
    Layer.provideMerge(Database.layer({ url: Option.some(process.env["DATABASE_URL"]!), dataDir: "memory://", poolSize: concurrency + 1 }))
  )
)

const cpuMicros = () => {
  const u = process.cpuUsage()
  return u.user + u.system
}

const round = async (mode: "json" | "encoded", r: number) => {
  const products = all.slice((r * perRound) % all.length, ((r * perRound) % all.length) + perRound)
  const company = `PROTO-${Date.now()}-${mode}`
  const processCode = crypto.randomUUID()
  await runtime.runPromise(Effect.flatMap(LoadRepository, (loads) =>
    loads.create({ processCode, company, source: "HANDLE_JSON", received: products.length, accepted: products.length, failed: 0, errors: [] })))
  const batches: Array<ProductBatch> = []
  for (let b = 0; b * BATCH < products.length; b++) batches.push({ processCode, company, batchNo: b, products: products.slice(b * BATCH, (b + 1) * BATCH) })
  const writer = new BinaryArrayWriter()
  const encodeStart = cpuMicros()
  const entries: Array<string> = mode === "json"
    ? batches.map((batch) => JSON.stringify(batch))
    : batches.map((batch) => "PC1:" + Buffer.from(encodeBatch({ processCode, company, batchNo: batch.batchNo }, batch.products, writer)).toString("base64"))
  const encodeMicros = cpuMicros() - encodeStart
  const bytes = entries.reduce((n, e) => n + (Buffer.byteLength(e)), 0)
  global.gc?.()
  const start = cpuMicros()
  const t0 = performance.now()
  await runtime.runPromise(Effect.flatMap(ProductRepository, (repo) =>
    Effect.forEach(entries, (entry) =>
      entry.startsWith("{")
        ? Effect.flatMap(Effect.orDie(Effect.fromResult(decodeProductBatch(entry))), repo.persistBatch)
        : Effect.flatMap(Effect.orDie(Effect.fromResult(decodeEncodedBatch(Buffer.from(entry.substring(4), "base64")))), repo.persistEncodedBatch),
      { concurrency, discard: true })))
  const wall = performance.now() - t0
  const cpu = cpuMicros() - start
  console.log(
    `${mode.padEnd(8)} round ${r}: worker ${(cpu / products.length).toFixed(1)} µs/product, ${(products.length / (wall / 1000)).toFixed(0)} products/s; ` +
      `entry build ${(encodeMicros / products.length).toFixed(1)} µs/product, ${(bytes / products.length).toFixed(0)} B/product; load ${loadavg().map((l) => l.toFixed(2)).join(" ")}`
  )
}

await round("json", 99) // warm-up
await round("encoded", 98)
for (let r = 0; r < rounds; r++) {
  await round("json", r)
  await round("encoded", r)
}
await runtime.dispose()
