import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Schema } from "effect"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { type App, CAPACITY_KEY, call, postJson, startApp } from "./support/App.ts"
import { lab } from "./support/Lab.ts"
import { withSql } from "./support/Postgres.ts"
import { freePort, waitUntil } from "./support/Processes.ts"
import { redisCommand, startRedis } from "./support/Redis.ts"

const NODES = ["CD-LURIN", "CD-CALLAO", "TD-SURCO", "TD-MIRAFLORES"] as const
const SKUS = 150
const skuOf = (i: number) => `SKU-DRILL-${String(i).padStart(3, "0")}`
/** Every node and SKU of the drill, at units that tell the batches apart. */
const batchOf = (sequence: number) => ({
  sequence,
  changes: Array.from({ length: SKUS }, (_, i) => NODES.map((node, n) => ({ node, sku: skuOf(i), units: sequence * 1000 + i + n }))).flat()
})
const ROWS = SKUS * NODES.length
/** The reconciler's interval in the drill: a missed batch is read from PostgreSQL within about this. */
const RECONCILE_MS = 1000

const StoredRows = Schema.Array(Schema.Struct({ sku: Schema.String, node: Schema.String, units: Schema.Number }))
const HeldRows = Schema.Struct({ sku: Schema.String, holders: Schema.Array(Schema.Struct({ node: Schema.String, units: Schema.Number })) })

/** The drill's rows as one text, `sku node units` sorted: from PostgreSQL, or as a replica answers them. */
const storedStock = (url: string) =>
  withSql(url, (sql) =>
    sql`SELECT sku, node, units FROM capacity_stock WHERE sku LIKE 'SKU-DRILL-%' ORDER BY sku, node`.pipe(
      Effect.flatMap(Schema.decodeUnknownEffect(StoredRows)),
      Effect.map((rows) => rows.map((row) => `${row.sku} ${row.node} ${row.units}`))
    ))
const heldStock = (app: App) =>
  Effect.forEach(Array.from({ length: SKUS }, (_, i) => skuOf(i)), (sku) =>
    Effect.flatMap(call(app.base, `/v1/stock/${sku}`, { headers: { authorization: `Bearer ${CAPACITY_KEY}` } }), (response) =>
      Effect.map(Schema.decodeUnknownEffect(HeldRows)(response.json()), (held) =>
        [...held.holders].sort((a, b) => a.node.localeCompare(b.node)).map((holder) => `${sku} ${holder.node} ${holder.units}`))), { concurrency: 8 }).pipe(
    Effect.map((rows) => rows.flat())
  )

describe("a server SIGKILLed between a stock batch's commit in PostgreSQL and its publish on the stock stream", () => {
  it.live("every replica converges on the database's stock: the others by their reconciler, the restarted one by its load", () =>
    Effect.gen(function*() {
      const { dir, postgres, connection } = yield* lab("stock-publish-killed")
      const settings = {
        ...connection,
        CAPACITY_EVENTS_STREAM: `stock-drill:${crypto.randomUUID().slice(0, 8)}:capacity`,
        CAPACITY_RECONCILE_INTERVAL_MS: String(RECONCILE_MS)
      }
      // The victim publishes on a Redis of its own, frozen (SIGSTOP) before the batch: its publish
      // waits after the commit, unanswered, until the victim is killed; nothing reaches the stream.
      const victimDir = join(dir, "victim-redis")
      mkdirSync(victimDir)
      const victimRedis = yield* startRedis(victimDir)
      const victimPort = String(yield* freePort)
      const [first, second] = yield* Effect.all([startApp("replica-1", dir, settings), startApp("replica-2", dir, settings)], { concurrency: 2 })
      const victim = yield* startApp("victim", dir, { ...settings, REDIS_URL: victimRedis.url, PORT: victimPort })

      // Batch 1 through a replica on the shared stream: every process holds it.
      const fed = yield* postJson(first.base, "/v1/stock/changes", batchOf(1), CAPACITY_KEY)
      expect(fed.status, fed.text).toBe(200)
      const afterFirst = yield* storedStock(postgres.url)
      expect(afterFirst).toHaveLength(ROWS)
      for (const app of [first, second, victim]) {
        yield* waitUntil(`${app.logFile}: batch 1`, Effect.flatMap(heldStock(app), (held) =>
          held.join("\n") === afterFirst.join("\n") ? Effect.void : Effect.fail(new Error("not yet"))), "30 seconds")
      }

      // Batch 2 through the victim: committed, then its publish waits on the frozen Redis; killed there.
      yield* victimRedis.freeze
      const cut = yield* Effect.forkChild(Effect.result(postJson(victim.base, "/v1/stock/changes", batchOf(2), CAPACITY_KEY)))
      yield* waitUntil("batch 2 committed", Effect.flatMap(withSql(postgres.url, (sql) =>
        sql`SELECT count(*)::int AS n FROM capacity_stock WHERE sku LIKE 'SKU-DRILL-%' AND sequence = 2`), (rows) =>
        rows[0]?.["n"] === ROWS ? Effect.void : Effect.fail(new Error(`${String(rows[0]?.["n"])} rows`))), "30 seconds")
      yield* victim.child.kill("SIGKILL")
      expect((yield* victim.child.exited).signal).toBe("SIGKILL")
      const answer = yield* Fiber.join(cut)
      expect(answer._tag, "the client got no answer: the connection was cut").toBe("Failure")
      const stored = yield* storedStock(postgres.url)
      expect(stored).toEqual(batchOf(2).changes.map((c) => `${c.sku} ${c.node} ${c.units}`).sort())

      // No entry of batch 2 came: the replicas still answer batch 1 (nothing else told them) until their reconciler reads it.
      const startedWaiting = Date.now()
      for (const app of [first, second]) {
        yield* waitUntil(`${app.logFile}: batch 2 by reconciliation`, Effect.flatMap(heldStock(app), (held) =>
          held.join("\n") === stored.join("\n") ? Effect.void : Effect.fail(new Error(`${held.filter((row, i) => row !== stored[i]).length} rows differ`))), "30 seconds")
      }
      yield* Effect.logInfo(`replicas converged ${Date.now() - startedWaiting} ms after the kill (reconciler every ${RECONCILE_MS} ms)`)
      // Not by the stream: it holds batch 1's one entry (600 rows), nothing of batch 2.
      expect(yield* redisCommand(connection.REDIS_URL, ["XLEN", `${settings.CAPACITY_EVENTS_STREAM}:stock`])).toBe(1)

      // The victim restarted (on the shared Redis) loads the database's stock.
      const restarted = yield* startApp("victim-restarted", dir, { ...settings, PORT: victimPort })
      expect((yield* heldStock(restarted)).join("\n")).toBe(stored.join("\n"))

      // And the stream still works between all three: batch 3 through the restarted one.
      expect((yield* postJson(restarted.base, "/v1/stock/changes", batchOf(3), CAPACITY_KEY)).status).toBe(200)
      const third = yield* storedStock(postgres.url)
      for (const app of [first, second, restarted]) {
        yield* waitUntil(`${app.logFile}: batch 3`, Effect.flatMap(heldStock(app), (held) =>
          held.join("\n") === third.join("\n") ? Effect.void : Effect.fail(new Error("not yet"))), "30 seconds")
      }
    }))
})
