import { createWriteStream, openAsBlob } from "node:fs"
import { readFile, rm, stat } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { once } from "node:events"
import { describe, expect, it } from "@effect/vitest"
import { Database } from "@retail/store"
import { sampleProduct } from "@retail/testkit"
import { Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import { eventually } from "./support/Http.ts"
import { startServerProcess } from "./support/ServerProcess.ts"
import { mintToken } from "./support/TestServer.ts"

const databaseUrl = process.env["DATABASE_URL"]
const redisUrl = process.env["REDIS_URL"]
const FILE_BYTES = 300 * 1024 * 1024
const HEAP_MB = 128

/** Writes `{"products":[...]}` of sample products until the file holds at least `bytes`; returns the count. */
const writeProductsFile = (path: string, prefix: string, bytes: number) =>
  Effect.promise(async () => {
    const out = createWriteStream(path)
    let written = 0
    let count = 0
    const write = async (text: string) => {
      written += Buffer.byteLength(text)
      if (!out.write(text)) await once(out, "drain")
    }
    await write("{\"products\":[")
    while (written < bytes) {
      await write((count === 0 ? "" : ",") + JSON.stringify(sampleProduct(count, { prefix })))
      count++
    }
    await write("]}")
    out.end()
    await once(out, "finish")
    return count
  })

const peakRssMb = (pid: number | undefined) =>
  Effect.promise(async () => {
    const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "")
    const kb = /VmHWM:\s+(\d+) kB/.exec(status)?.[1]
    return kb === undefined ? Number.NaN : Math.round(Number(kb) / 1024)
  })

// The in-process queue keeps batches in the server's own heap by design (development mode), so this
// runs where the batches go to Redis: CI, or a developer with DATABASE_URL and REDIS_URL set.
describe.skipIf(databaseUrl === undefined || redisUrl === undefined)(`a ${FILE_BYTES >> 20} MB file under a ${HEAP_MB} MB heap`, () => {
  it.live("completes with every product in PostgreSQL", () =>
    Effect.scoped(Effect.gen(function*() {
      const run = crypto.randomUUID().slice(0, 8).toUpperCase()
      const prefix = `BIG${run}-`
      const path = join(tmpdir(), `large-load-${run}.json`)
      yield* Effect.addFinalizer(() => Effect.promise(() => rm(path, { force: true })))
      const count = yield* writeProductsFile(path, prefix, FILE_BYTES)
      expect((yield* Effect.promise(() => stat(path))).size).toBeGreaterThan(FILE_BYTES)

      const server = yield* startServerProcess({ WORKERS: "4", PRODUCT_BATCH_SIZE: "500" }, [`--max-old-space-size=${HEAP_MB}`])
      const token = yield* mintToken({ scope: "products:write products:read", company: "ACME" })
      const form = new FormData()
      form.append("productsJson", yield* Effect.promise(() => openAsBlob(path, { type: "application/json" })), "products.json")
      const response = yield* Effect.promise(() =>
        fetch(`${server.baseUrl}/v1/handle-json`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form })
      )
      const body = (yield* Effect.promise(() => response.json())) as { processCode: string; message: string }
      expect(response.status, server.output()).toBe(200)
      expect(body.message).toBe(`${count} products are being processed; process code ${body.processCode}`)

      const view = Effect.promise(() =>
        fetch(`${server.baseUrl}/v1/loads/${body.processCode}`, { headers: { authorization: `Bearer ${token}` } })
          .then((r) => r.json() as Promise<{ status: string; totals: Record<string, number> }>)
      )
      const done = yield* eventually(view, (v) => v.status !== "PROCESSING", 300_000)
      expect(done).toMatchObject({ status: "COMPLETED", totals: { received: count, accepted: count, persisted: count, failed: 0 } })
      expect(server.child.exitCode).toBeNull()
      yield* Effect.logInfo(`${count} products, peak RSS of the server ${yield* peakRssMb(server.child.pid)} MB`)

      const stored = yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ n: string }>`SELECT count(*)::text AS n FROM products WHERE company = 'ACME' AND product_code LIKE ${prefix + "%"}`
      ).pipe(
        Effect.provide(Database.layer({ url: Option.some(databaseUrl ?? ""), dataDir: "", poolSize: 1 })),
        Effect.orDie
      )
      expect(stored[0]?.n).toBe(String(count))
    })), { timeout: 600_000 })
})
