import { describe, expect, it } from "@effect/vitest"
import { sampleProducts } from "@retail/testkit"
import { Effect, Schema } from "effect"
import { clusterPlan, WORKER_ROLE } from "../../scripts/clusterPlan.ts"
import { serverNodeFlags } from "../../scripts/serverNodeFlags.ts"
import { nodeFlagsOf } from "../support/ProcessTable.ts"
import { type App, CAPACITY_KEY, call, postJson, startApp, token } from "./support/App.ts"
import { Offer, orderOf, pickupRequest, STORE, STORE_CAPACITY } from "./support/Capacity.ts"
import { lab } from "./support/Lab.ts"
import { acceptedFileLoad, acceptedLoad, expectPersistedOnce, type SentLoad } from "./support/Loads.ts"
import { freePort, waitUntil } from "./support/Processes.ts"
import { redisCommand } from "./support/Redis.ts"
import { loadTotals } from "./support/Store.ts"

const BATCH_SIZE = 50

const offerOn = (base: string) =>
  Effect.flatMap(postJson(base, "/v1/delivery/capacity", pickupRequest, CAPACITY_KEY), (response) => {
    expect(response.status, response.text).toBe(200)
    return Effect.map(Schema.decodeUnknownEffect(Offer)(response.json()), ([offer]) => offer)
  })

/** The consumer names of the batches group: who persisted. */
const consumersOf = (url: string, stream: string, group: string) =>
  Effect.map(redisCommand(url, ["XINFO", "CONSUMERS", stream, group]), (reply) =>
    (Array.isArray(reply) ? reply : []).map((consumer: unknown) => {
      // A flat [field, value, ...] list under RESP2, a map under RESP3.
      if (Array.isArray(consumer)) return String(consumer[consumer.indexOf("name") + 1])
      if (consumer instanceof Map) return String(consumer.get("name"))
      return typeof consumer === "object" && consumer !== null ? String((consumer as Record<string, unknown>)["name"]) : ""
    }))

describe("scale-out: the cluster plan (npm run cluster, docker-compose.yml) as processes on one PostgreSQL and one Redis", () => {
  it.live("loads taken by the API processes are persisted by the worker processes, a worker killed mid-load loses nothing, and an order taken on one capacity process is seen by the other", () =>
    Effect.gen(function*() {
      const { dir, postgres, redis, names, connection } = yield* lab("scale-out")
      const shared = {
        ...connection,
        PRODUCT_BATCH_SIZE: String(BATCH_SIZE),
        CLAIM_IDLE_MS: "2000",
        WORKERS: "2",
        CAPACITY_EVENTS_STREAM: `scale-out:${crypto.randomUUID().slice(0, 8)}:capacity`
      }
      const plan = clusterPlan({ api: 2, workers: 2, capacity: 2, basePort: 0, internalBasePort: 0 })
      const started = yield* Effect.forEach(plan, (member) =>
        Effect.gen(function*() {
          // Free ports instead of the plan's consecutive ones: other suites run on this machine.
          const app = yield* startApp(member.name, dir, { ...shared, ...member.env, PORT: String(yield* freePort), INTERNAL_PORT: "0" }, {
            nodeFlags: member.nodeFlags
          })
          return [member.name, { app, role: member.role }] as const
        }), { concurrency: 2 })
      const byName = new Map(started)
      // Each process runs with its role's Node.js flags after npm start's (the compose file's commands).
      for (const member of plan) {
        const found = byName.get(member.name)
        expect(nodeFlagsOf(found?.app.child.pid ?? 0), member.name).toEqual([...serverNodeFlags(), ...(member.role === "worker" ? WORKER_ROLE.nodeFlags : [])])
      }
      const app = (name: string): App => {
        const found = byName.get(name)
        if (found === undefined) throw new Error(`no process ${name}`)
        return found.app
      }

      // Loads go to the API processes only; they run no workers.
      const bearer = yield* token("SCALE")
      const file = sampleProducts(15_000, { prefix: "SOF-" })
      const loads: Array<SentLoad> = [{ processCode: yield* acceptedFileLoad(app("api-1").base, file, bearer), products: file }]
      for (const [i, api] of ["api-1", "api-2"].entries()) {
        const products = sampleProducts(3_000, { prefix: `SOL${i}-` })
        loads.push({ processCode: yield* acceptedLoad(app(api).base, products, bearer), products })
      }
      const codes = loads.map((load) => load.processCode)
      const total = loads.reduce((sum, load) => sum + load.products.length, 0)
      yield* waitUntil("persisting under way", Effect.flatMap(loadTotals(postgres.url, codes), (t) =>
        t.persisted > 0 ? Effect.void : Effect.fail(new Error("none yet"))))
      const victim = app("worker-1")
      yield* victim.child.kill("SIGKILL")
      yield* victim.child.exited
      expect((yield* loadTotals(postgres.url, codes)).persisted, "killed mid-load").toBeLessThan(total)

      yield* expectPersistedOnce({
        base: app("api-2").base,
        bearer,
        postgresUrl: postgres.url,
        redisUrl: redis.url,
        streams: names,
        company: "SCALE",
        prefix: "SO",
        batchSize: BATCH_SIZE,
        loads
      })
      const consumers = yield* consumersOf(redis.url, names.PRODUCT_BATCHES_STREAM, names.PRODUCT_CONSUMER_GROUP)
      expect(consumers.length).toBeGreaterThan(0)
      for (const consumer of consumers) expect(consumer, "only worker processes consume").toMatch(/^worker-\d+-/)

      // Capacity: fill the store's picking day through capacity-1; capacity-2 plans past it.
      const [one, two] = [app("capacity-1").base, app("capacity-2").base]
      const before = yield* offerOn(two)
      const order = orderOf(before, "SCALE-OUT-1", STORE_CAPACITY)
      const taken = yield* postJson(one, "/v1/delivery/capacity/consumptions", order, CAPACITY_KEY)
      expect(taken.status, taken.text).toBe(200)
      const after = yield* waitUntil("capacity-2 sees the order", Effect.flatMap(offerOn(two), (offer) =>
        offer.pickingDate > before.pickingDate ? Effect.succeed(offer) : Effect.fail(new Error(`still ${offer.pickingDate}`))), "30 seconds")
      expect(after.pickingDate > before.pickingDate).toBe(true)
      const ledger = yield* call(two, `/v1/delivery/capacity/nodes/${STORE}?from=${before.pickingDate}&to=${before.pickingDate}`, {
        headers: { authorization: `Bearer ${CAPACITY_KEY}` }
      })
      expect((ledger.json() as { usage: ReadonlyArray<unknown> }).usage)
        .toContainEqual({ kind: "PICKING", pool: "ALL", date: before.pickingDate, used: STORE_CAPACITY })
      const again = yield* postJson(two, "/v1/delivery/capacity/consumptions", order, CAPACITY_KEY)
      expect(again.json()).toMatchObject({ status: "ALREADY_APPLIED" })
    }))
})
