import { describe, expect, it } from "@effect/vitest"
import { sampleProducts } from "@retail/testkit"
import { Effect } from "effect"
import { startApp, token } from "./support/App.ts"
import { lab } from "./support/Lab.ts"
import { acceptedLoad, expectStoredExactly, finalViews } from "./support/Loads.ts"
import { waitUntil } from "./support/Processes.ts"
import { batchOfPayload, isColumnsEntry, pendingEntries, redisCommand, streamLength, streamPayloads } from "./support/Redis.ts"
import { holdLoadLocks, loadTotals, recordedBatches } from "./support/Store.ts"

const LOADS = 3
const PER_LOAD = 600

describe("a worker process killed with SIGKILL in the middle of batches", () => {
  it.live("after a restart every accepted product is in PostgreSQL exactly once, pending entries (binary columns) were claimed again, every load completes", () =>
    Effect.gen(function*() {
      const { dir, postgres, redis, names, connection } = yield* lab("worker-killed")
      const settings = {
        ...connection,
        PRODUCT_BATCH_SIZE: "10",
        CLAIM_IDLE_MS: "2000",
        MAX_DELIVERIES: "5",
        WORKERS: "2"
      }
      // The loads in flight at the kill are published as binary columns (BATCH_ENTRY_FORMAT=columns: by default
      // /load-products publishes JSON, file loads columns), the one accepted while no worker runs as JSON
      // (BATCH_ENTRY_FORMAT=json, as a release before columns publishes): the new worker reads both.
      const [api, apiJson, worker] = yield* Effect.all([
        startApp("api", dir, { ...settings, RUN_WORKERS: "false", BATCH_ENTRY_FORMAT: "columns" }),
        startApp("api-json", dir, { ...settings, RUN_WORKERS: "false", BATCH_ENTRY_FORMAT: "json" }),
        startApp("worker-1", dir, { ...settings, RUN_WORKERS: "true" })
      ], { concurrency: 3 })
      const bearer = yield* token("ACME")

      const sent = Array.from({ length: LOADS }, (_, i) => sampleProducts(PER_LOAD, { prefix: `WK${i}-` }))
      const codes: Array<string> = []
      for (const products of sent) codes.push(yield* acceptedLoad(api.base, products, bearer))

      // Let the worker persist some batches, then make it wait inside its transactions with entries pending.
      yield* waitUntil("first batches persisted", Effect.flatMap(loadTotals(postgres.url, codes), (t) =>
        t.persisted > 0 ? Effect.void : Effect.fail(new Error("none yet"))))
      const releaseLocks = yield* holdLoadLocks(postgres.url, codes)
      // Pending for a second behind the held locks: stuck in their transactions. (An entry merely listed
      // as pending may still commit, and leave the stream, before the kill.)
      const inFlight = yield* waitUntil("entries stuck in the worker", Effect.flatMap(
        pendingEntries(redis.url, names.PRODUCT_BATCHES_STREAM, names.PRODUCT_CONSUMER_GROUP),
        (pending) => {
          const stuck = pending.filter((entry) => entry.idleMs >= 1_000)
          return stuck.length >= 2 ? Effect.succeed(stuck) : Effect.fail(new Error(`${stuck.length} stuck of ${pending.length} pending`))
        }
      ))
      yield* worker.child.kill("SIGKILL")
      const killed = yield* worker.child.exited
      expect(killed.signal).toBe("SIGKILL")
      yield* releaseLocks

      const atKill = yield* loadTotals(postgres.url, codes)
      expect(atKill.accepted).toBe(LOADS * PER_LOAD)
      expect(atKill.persisted).toBeLessThan(LOADS * PER_LOAD)
      const payloads = new Map((yield* streamPayloads(redis.url, names.PRODUCT_BATCHES_STREAM)).map((e) => [e.id, e.payload]))
      expect(inFlight.every((entry) => isColumnsEntry(payloads.get(entry.id) ?? "")), "the worker was killed persisting columns entries").toBe(true)
      const batchOf = (id: string) => batchOfPayload(payloads.get(id))
      const recordedAtKill = new Set((yield* recordedBatches(postgres.url)).map((b) => `${b.process_code}/${b.batch_no}`))
      for (const entry of inFlight) expect(recordedAtKill.has(batchOf(entry.id)), "the killed worker's transaction was rolled back").toBe(false)

      // A load accepted while no worker runs waits in the stream.
      const late = sampleProducts(200, { prefix: "WK-LATE-" })
      const lateCode = yield* acceptedLoad(apiJson.base, late, bearer)
      codes.push(lateCode)
      const lateEntries = (yield* streamPayloads(redis.url, names.PRODUCT_BATCHES_STREAM)).filter((entry) => batchOfPayload(entry.payload).startsWith(`${lateCode}/`))
      expect(lateEntries.length).toBe(20)
      expect(lateEntries.some((entry) => isColumnsEntry(entry.payload))).toBe(false)

      yield* startApp("worker-2", dir, { ...settings, RUN_WORKERS: "true" })
      const views = yield* finalViews(api.base, codes, bearer)
      for (const view of views) {
        expect(view.status).toBe("COMPLETED")
        expect(view.totals.persisted).toBe(view.totals.accepted)
      }

      yield* expectStoredExactly(postgres.url, "ACME", "WK", [...sent.flat(), ...late])
      const batches = yield* recordedBatches(postgres.url)
      expect(batches.length).toBe(LOADS * PER_LOAD / 10 + 20)
      expect(batches.every((b) => b.outcome === "PERSISTED")).toBe(true)
      const recorded = new Set(batches.map((b) => `${b.process_code}/${b.batch_no}`))
      for (const entry of inFlight) expect(recorded.has(batchOf(entry.id))).toBe(true)

      expect(yield* pendingEntries(redis.url, names.PRODUCT_BATCHES_STREAM, names.PRODUCT_CONSUMER_GROUP)).toEqual([])
      expect(yield* streamLength(redis.url, `${names.PRODUCT_BATCHES_STREAM}:dead`)).toBe(0)
      // The killed worker's consumers hold nothing any more: their entries were claimed by the new worker.
      const consumers = yield* redisCommand(redis.url, ["XINFO", "CONSUMERS", names.PRODUCT_BATCHES_STREAM, names.PRODUCT_CONSUMER_GROUP])
      expect(JSON.stringify(consumers)).toContain("worker-2")
    }))
})
