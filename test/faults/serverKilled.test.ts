import { describe, expect, it } from "@effect/vitest"
import { sampleProducts } from "@retail/testkit"
import { Effect } from "effect"
import { startApp, token } from "./support/App.ts"
import { lab } from "./support/Lab.ts"
import { acceptedFileLoad, acceptedLoad, expectPersistedOnce, type SentLoad } from "./support/Loads.ts"
import { waitUntil } from "./support/Processes.ts"
import { batchOfPayload, pendingEntries, streamPayloads } from "./support/Redis.ts"
import { loadTotals, recordedBatches } from "./support/Store.ts"

const BATCH_SIZE = 50
const FILE_PRODUCTS = 20_000
const LOADS = 2
const PER_LOAD = 3_000

describe("two servers on one PostgreSQL and one Redis, one SIGKILLed while the workers persist", () => {
  it.live("the survivor claims the dead server's pending entries; every load COMPLETED, every product persisted once", () =>
    Effect.gen(function*() {
      const { dir, postgres, redis, names, connection } = yield* lab("server-killed")
      const settings = {
        ...connection,
        PRODUCT_BATCH_SIZE: String(BATCH_SIZE),
        CLAIM_IDLE_MS: "2000",
        MAX_DELIVERIES: "5",
        WORKERS: "2",
        RUN_WORKERS: "true"
      }
      // Both run workers; only `receiver` is sent loads, so killing `victim` never cuts a publication short.
      const [receiver, victim] = yield* Effect.all([startApp("receiver", dir, settings), startApp("victim", dir, settings)], { concurrency: 2 })
      const victimConsumers = `victim-${new URL(victim.base).port}-`
      const bearer = yield* token("ACME")
      const pending = pendingEntries(redis.url, names.PRODUCT_BATCHES_STREAM, names.PRODUCT_CONSUMER_GROUP)

      // A file load of tens of thousands of products, then /load-products requests: all published (200) by the receiver.
      const fileProducts = sampleProducts(FILE_PRODUCTS, { prefix: "SKF0-" })
      const loads: Array<SentLoad> = [{ processCode: yield* acceptedFileLoad(receiver.base, fileProducts, bearer), products: fileProducts }]
      for (let i = 0; i < LOADS; i++) {
        const products = sampleProducts(PER_LOAD, { prefix: `SKL${i}-` })
        loads.push({ processCode: yield* acceptedLoad(receiver.base, products, bearer), products })
      }
      const codes = loads.map((load) => load.processCode)
      const total = FILE_PRODUCTS + LOADS * PER_LOAD

      // The workers of both servers are persisting them: kill the victim while its consumers hold entries.
      yield* waitUntil("the victim holding entries", Effect.flatMap(pending, (entries) => {
        const held = entries.filter((entry) => entry.consumer.startsWith(victimConsumers))
        return held.length > 0 ? Effect.void : Effect.fail(new Error(`victim holds none of ${entries.length}`))
      }))
      yield* victim.child.kill("SIGKILL")
      expect((yield* victim.child.exited).signal).toBe("SIGKILL")

      // What the victim held when it died: nobody acked it, the survivor must claim it.
      const orphans = (yield* pending).filter((entry) => entry.consumer.startsWith(victimConsumers))
      expect(orphans.length, "the victim died holding entries").toBeGreaterThan(0)
      const atKill = yield* loadTotals(postgres.url, codes)
      expect(atKill.accepted).toBe(total)
      expect(atKill.persisted, "killed mid-way").toBeLessThan(total * 0.9)
      const payloads = new Map((yield* streamPayloads(redis.url, names.PRODUCT_BATCHES_STREAM)).map((e) => [e.id, e.payload]))
      const orphanBatches = orphans.map((entry) => batchOfPayload(payloads.get(entry.id)))

      yield* expectPersistedOnce({
        base: receiver.base,
        bearer,
        postgresUrl: postgres.url,
        redisUrl: redis.url,
        streams: names,
        company: "ACME",
        prefix: "SK",
        batchSize: BATCH_SIZE,
        loads
      })
      const recorded = new Set((yield* recordedBatches(postgres.url)).map((b) => `${b.process_code}/${b.batch_no}`))
      for (const batch of orphanBatches) expect(recorded.has(batch), `orphaned batch ${batch} persisted`).toBe(true)
    }))
})
