import { describe, expect, it } from "@effect/vitest"
import { sampleProducts, Scrape } from "@retail/testkit"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { call, postJson, startApp, token } from "./support/App.ts"
import { lab } from "./support/Lab.ts"
import { acceptedLoad, expectPersistedOnce, expectStoredExactly, finalViews, type SentLoad } from "./support/Loads.ts"
import { waitUntil } from "./support/Processes.ts"
import { pendingEntries, streamLength } from "./support/Redis.ts"
import { holdLoadLocks, loadTotals } from "./support/Store.ts"

const LOADS = 3
const PER_LOAD = 600
const CLAIM_IDLE_MS = 1500

describe("PostgreSQL stopped while workers run", () => {
  it.live("workers keep their entries pending (no ack, no dead letter), /ready says not ready, and everything is persisted once it is back", () =>
    Effect.gen(function*() {
      const { dir, postgres, redis, names, connection } = yield* lab("postgres-down")
      const app = yield* startApp("app", dir, {
        ...connection,
        PRODUCT_BATCH_SIZE: "10",
        CLAIM_IDLE_MS: String(CLAIM_IDLE_MS),
        // Few deliveries: an outage must not use them up.
        MAX_DELIVERIES: "2",
        WORKERS: "2",
        METRICS_PUBLIC: "true"
      })
      const bearer = yield* token("ACME")
      const pending = pendingEntries(redis.url, names.PRODUCT_BATCHES_STREAM, names.PRODUCT_CONSUMER_GROUP)

      const sent = Array.from({ length: LOADS }, (_, i) => sampleProducts(PER_LOAD, { prefix: `PD${i}-` }))
      const codes: Array<string> = []
      for (const products of sent) codes.push(yield* acceptedLoad(app.base, products, bearer))
      yield* waitUntil("first batches persisted", Effect.flatMap(loadTotals(postgres.url, codes), (t) =>
        t.persisted > 0 ? Effect.void : Effect.fail(new Error("none yet"))))
      // Workers wait inside their transactions, so the database goes away with batches in flight.
      yield* holdLoadLocks(postgres.url, codes)
      yield* waitUntil("entries in flight", Effect.flatMap(pending, (p) => p.length >= 2 ? Effect.void : Effect.fail(new Error(`${p.length}`))))
      const beforeStop = yield* loadTotals(postgres.url, codes)
      expect(beforeStop.persisted).toBeLessThan(LOADS * PER_LOAD)

      yield* postgres.stop
      const inOutage = yield* pending
      expect(inOutage.length).toBeGreaterThan(0)

      const ready = yield* waitUntil("not ready", Effect.flatMap(call(app.base, "/ready"), (r) =>
        r.status === 503 ? Effect.succeed(r) : Effect.fail(new Error(`${r.status}`))))
      expect(ready.json()).toMatchObject({ status: "not ready", checks: { database: "down", queue: "up" } })
      const refused = yield* postJson(app.base, "/v1/load-products", { products: sampleProducts(5, { prefix: "PD-REFUSED-" }) }, bearer)
      expect(refused.status).toBe(500)
      expect(refused.json()).toEqual({ message: expect.stringContaining("the database is unavailable") })

      // Several claim periods go by: entries are retried (claimed again) but never acked nor dead-lettered.
      yield* Effect.sleep(CLAIM_IDLE_MS * 4)
      const later = yield* pending
      const stillPending = new Set(later.map((entry) => entry.id))
      for (const entry of inOutage) expect(stillPending.has(entry.id), `entry ${entry.id} left the pending list during the outage`).toBe(true)
      // A delivery that met the outage is given back: the outage brings no batch nearer to the dead letters.
      expect(later.filter((entry) => entry.deliveries > 1), JSON.stringify(later)).toEqual([])
      expect(yield* streamLength(redis.url, `${names.PRODUCT_BATCHES_STREAM}:dead`)).toBe(0)
      expect((yield* call(app.base, "/ready")).status).toBe(503)
      // /metrics shows the outage: the entries pending in Redis, none dead-lettered.
      const metrics = new Scrape((yield* call(app.base, "/metrics")).text)
      const group = { stream: names.PRODUCT_BATCHES_STREAM, group: names.PRODUCT_CONSUMER_GROUP }
      expect(metrics.value("queue_pending_entries", group)).toBe((yield* pending).length)
      expect(metrics.value("queue_oldest_pending_seconds", group)).toBeGreaterThan(0)
      expect(metrics.value("queue_dead_letter_length", { stream: group.stream })).toBe(0)
      expect(metrics.value("queue_dead_letters_total", { stream: group.stream })).toBe(0)

      yield* postgres.start
      yield* waitUntil("ready again", Effect.flatMap(call(app.base, "/ready"), (r) => r.status === 200 ? Effect.void : Effect.fail(new Error(r.text))))
      const views = yield* finalViews(app.base, codes, bearer)
      for (const view of views) {
        expect(view.status, JSON.stringify(view)).toBe("COMPLETED")
        expect(view.totals.persisted).toBe(PER_LOAD)
      }
      yield* expectStoredExactly(postgres.url, "ACME", "PD", sent.flat())
      // A delivery that met the stop is given back to the reclaimer uncounted; if its batch had
      // committed (the connection lost after the commit), the load completes while the entry is still
      // pending, until the reclaimer claims it again and acknowledges it as recorded (as in
      // expectPersistedOnce). Seen once in CI: an entry of the reclaimer's, 0 deliveries, 6.5 s idle.
      yield* waitUntil("nothing pending", Effect.flatMap(pending, (left) =>
        left.length === 0 ? Effect.void : Effect.fail(new Error(JSON.stringify(left)))), "20 seconds")
      expect(yield* streamLength(redis.url, `${names.PRODUCT_BATCHES_STREAM}:dead`)).toBe(0)
      // The outage was handled as one (StoreError, wait for the database), not as a crash of the consumer fibers.
      expect(readFileSync(app.logFile, "utf8")).not.toMatch(/consumer \S+ failed; restarting/)
    }))

  it.live("down for 20 s while workers persist a large load: afterwards every product persisted once, every load COMPLETED, no dead letter", () =>
    Effect.gen(function*() {
      const { dir, postgres, redis, names, connection } = yield* lab("postgres-down-20s")
      const batchSize = 50
      const app = yield* startApp("app", dir, {
        ...connection,
        PRODUCT_BATCH_SIZE: String(batchSize),
        CLAIM_IDLE_MS: "2000",
        // Ten claim periods of outage against two deliveries: only uncounted deliveries keep the batches out of the dead letters.
        MAX_DELIVERIES: "2",
        WORKERS: "2"
      })
      const bearer = yield* token("ACME")
      const pending = pendingEntries(redis.url, names.PRODUCT_BATCHES_STREAM, names.PRODUCT_CONSUMER_GROUP)
      const deadLetters = streamLength(redis.url, `${names.PRODUCT_BATCHES_STREAM}:dead`)

      const loads: Array<SentLoad> = []
      for (let i = 0; i < 4; i++) {
        const products = sampleProducts(3_000, { prefix: `PL${i}-` })
        loads.push({ processCode: yield* acceptedLoad(app.base, products, bearer), products })
      }
      const codes = loads.map((load) => load.processCode)
      yield* waitUntil("workers persisting", Effect.flatMap(loadTotals(postgres.url, codes), (t) =>
        t.persisted > 0 ? Effect.void : Effect.fail(new Error("none yet"))))
      const beforeStop = yield* loadTotals(postgres.url, codes)
      expect(beforeStop.persisted, "the outage meets the loads mid-way").toBeLessThan(beforeStop.accepted)

      yield* postgres.stop
      const stoppedAt = Date.now()
      const atStop = yield* loadTotals(postgres.url, codes).pipe(Effect.option)
      expect(atStop._tag, "the database is down").toBe("None")
      const inOutage = yield* pending
      expect(inOutage.length, "batches were in flight").toBeGreaterThan(0)
      yield* Effect.sleep(20_000 - (Date.now() - stoppedAt))
      const afterOutage = yield* pending
      expect(afterOutage.length).toBeGreaterThanOrEqual(inOutage.length)
      expect(yield* deadLetters).toBe(0)
      expect((yield* call(app.base, "/ready")).status).toBe(503)
      yield* postgres.start

      yield* expectPersistedOnce({
        base: app.base,
        bearer,
        postgresUrl: postgres.url,
        redisUrl: redis.url,
        streams: names,
        company: "ACME",
        prefix: "PL",
        batchSize,
        loads
      })
    }))
})
