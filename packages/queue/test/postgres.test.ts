/**
 * The contract on a real PostgreSQL server: DATABASE_URL's when set, else the store's embedded
 * server on a temporary folder (PGlite in memory is one session, so it would not show concurrency).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Database } from "@retail/store"
import { Array as Arr, Chunk, Context, Effect, Fiber, Layer, ManagedRuntime, Option, Ref } from "effect"
import { SqlClient } from "effect/sql"
import { chmodSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PostgresStreamQueue, StreamQueue, type StreamQueueShape } from "../src/index.ts"
import { streamQueueContract } from "./contract.ts"

const given = process.env["DATABASE_URL"]
const root = mkdtempSync(join(tmpdir(), "pgqueue-"))
// As root the server runs as postgres, which must be able to pass through the test's folder.
chmodSync(root, 0o755)
const dataDir = join(root, "data")
const url = given !== undefined && given !== "" ? given : `postgres://postgres@localhost/postgres?host=${encodeURIComponent(dataDir)}`

// Holds the embedded server (or checks the given one) for the whole file.
const server = ManagedRuntime.make(Database.layer({ url: given !== undefined && given !== "" ? Option.some(given) : Option.none(), dataDir, poolSize: 1 }))
beforeAll(() => server.runPromise(Effect.void), 120_000)
afterAll(async () => {
  await server.dispose()
  rmSync(root, { recursive: true, force: true })
})

/** A queue on a pool of its own: as another process on the same database would have. */
const queueLayer = (poolSize: number) =>
  PostgresStreamQueue.layer({ location: "test server" }).pipe(
    Layer.provide(Layer.orDie(Database.layer({ url: Option.some(url), dataDir, poolSize })))
  )

streamQueueContract({ name: "postgres", layer: queueLayer(8) })

describe("PostgresStreamQueue across processes", () => {
  it.live("consumers on two pools of the same database take each entry exactly once", () =>
    Effect.gen(function*() {
      const a = Context.get(yield* Layer.build(queueLayer(4)), StreamQueue)
      const b = Context.get(yield* Layer.build(queueLayer(4)), StreamQueue)
      const stream = `test:queue:${crypto.randomUUID()}`
      yield* a.ensureGroup(stream, "g")
      expect(yield* b.ensureGroup(stream, "g")).toBe(false)
      const total = 400
      const seen = yield* Ref.make(Chunk.empty<string>())
      const worker = (queue: StreamQueueShape, consumer: string) =>
        Effect.gen(function*() {
          while (Chunk.size(yield* Ref.get(seen)) < total) {
            const batch = yield* queue.read(stream, "g", consumer, { count: 3, blockMs: 300 })
            yield* Ref.update(seen, Chunk.appendAll(Chunk.fromIterable(batch.map((d) => d.id))))
            yield* queue.ack(stream, "g", batch.map((d) => d.id), { deleteEntries: true })
          }
        })
      const workers = yield* Effect.forEach(Arr.makeBy(6, (i) => worker(i % 2 === 0 ? a : b, `w${i}`)), (work) => Effect.forkChild(work))
      // Published from both sides: readers of the other process only find them by polling.
      const published = yield* Effect.forEach(Arr.makeBy(40, (i) => Arr.makeBy(total / 40, (j) => `p${i}-${j}`)), (batch, i) =>
        (i % 2 === 0 ? a : b).publish(stream, batch), { concurrency: 4 })
      yield* Effect.forEach(workers, Fiber.join).pipe(Effect.timeout("30 seconds"))
      const ids = Chunk.toReadonlyArray(yield* Ref.get(seen))
      expect(new Set(ids).size).toBe(ids.length)
      expect([...ids].sort()).toEqual(published.flat().sort())
      expect(yield* a.length(stream)).toBe(0)
    }), 60_000)

  it.live("durability names the database and is durable", () =>
    Effect.gen(function*() {
      const queue = Context.get(yield* Layer.build(queueLayer(1)), StreamQueue)
      const durability = yield* queue.durability
      expect(durability.durable).toBe(true)
      // The database of the URL the queue runs on: DATABASE_URL's, or the embedded server's "postgres".
      expect(durability.description).toContain(`database "${new URL(url).pathname.slice(1)}"`)
    }))

  it.live("payloads are stored uncompressed", () =>
    Effect.gen(function*() {
      yield* Layer.build(queueLayer(1))
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql`SELECT attstorage FROM pg_attribute WHERE attrelid = 'retail_queue_entries'::regclass AND attname = 'payload'`
      expect(rows).toEqual([{ attstorage: "e" }])
    }).pipe(Effect.provide(Layer.orDie(Database.layer({ url: Option.some(url), dataDir, poolSize: 1 })))))
})
