/**
 * The queue alone, without persisting products: a 3000-product load (12 entries of 250 products,
 * as the publisher builds them) published with its tracking set in one call, then read one entry
 * at a time by two consumers and acked with deleteEntries + untrack, as the batch workers do; on
 * the in-process queue and on the PostgreSQL queue of the store's embedded server (a temporary
 * DATA_DIR). `npx tsx benchmarks/src/queueCompare.ts [rounds]`.
 */
import { Database } from "@retail/store"
import { MemoryStreamQueue, PostgresStreamQueue, StreamQueue, type StreamQueueShape } from "@retail/queue"
import { sampleProducts } from "@retail/testkit"
import { Effect, Layer, Option } from "effect"
import { chmodSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const PRODUCTS = 3000
const BATCH = 250
const rounds = Number(process.argv[2] ?? "5")

const processCode = crypto.randomUUID()
const entries = Array.from({ length: PRODUCTS / BATCH }, (_, batchNo) =>
  new TextEncoder().encode(JSON.stringify({
    processCode,
    company: "BENCH",
    batchNo,
    products: sampleProducts(BATCH, { from: batchNo * BATCH, prefix: "QB-" })
  })))
const bytes = entries.reduce((sum, entry) => sum + entry.byteLength, 0)

const oneLoad = (queue: StreamQueueShape, round: number) =>
  Effect.gen(function*() {
    const stream = `bench:${round}:${crypto.randomUUID()}`
    const set = `${stream}:load`
    yield* queue.ensureGroup(stream, "g")
    const started = performance.now()
    yield* queue.publish(stream, entries, { track: { set, members: entries.map((_, i) => String(i)) } })
    const published = performance.now()
    let done = 0
    let readMs = 0
    let ackMs = 0
    const consumer = (name: string) =>
      Effect.gen(function*() {
        while (done < entries.length) {
          const reading = performance.now()
          const [delivery] = yield* queue.read(stream, "g", name, { count: 1, blockMs: 100 })
          readMs += performance.now() - reading
          if (delivery === undefined) continue
          const batchNo = (JSON.parse(delivery.payload) as { batchNo: number }).batchNo
          const acking = performance.now()
          yield* queue.ack(stream, "g", [delivery.id], { deleteEntries: true, untrack: { set, members: [String(batchNo)] } })
          ackMs += performance.now() - acking
          done++
        }
      })
    yield* Effect.all([consumer("c0"), consumer("c1")], { concurrency: "unbounded" })
    return { publishMs: published - started, consumeMs: performance.now() - published, readMs, ackMs }
  })

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

const measure = (name: string) =>
  Effect.gen(function*() {
    const queue = yield* StreamQueue
    yield* oneLoad(queue, -1) // warm-up
    const runs = []
    for (let round = 0; round < rounds; round++) runs.push(yield* oneLoad(queue, round))
    const publish = median(runs.map((run) => run.publishMs))
    const consume = median(runs.map((run) => run.consumeMs))
    const reads = median(runs.map((run) => run.readMs))
    const acks = median(runs.map((run) => run.ackMs))
    console.log(
      `${name}: publish ${publish.toFixed(1)} ms, consume+ack ${consume.toFixed(1)} ms, total ${(publish + consume).toFixed(1)} ms ` +
        `(time in read ${reads.toFixed(1)} ms, in ack ${acks.toFixed(1)} ms, summed over both consumers) ` +
        `(median of ${rounds}; ${entries.length} entries, ${(bytes / 1024 / 1024).toFixed(2)} MiB)`
    )
  })

const root = mkdtempSync(join(tmpdir(), "queue-bench-"))
chmodSync(root, 0o755)
const database = Database.layer({ url: Option.none(), dataDir: join(root, "data"), poolSize: 10 })

await Effect.runPromise(measure("in-process queue").pipe(Effect.provide(MemoryStreamQueue.layer)))
await Effect.runPromise(
  measure("PostgreSQL queue (embedded server)").pipe(
    Effect.provide(PostgresStreamQueue.layer({ location: "embedded PostgreSQL server" }).pipe(Layer.provide(database)))
  )
).finally(() => rmSync(root, { recursive: true, force: true }))
