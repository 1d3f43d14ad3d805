import { describe, expect, layer } from "@effect/vitest"
import { parseDay } from "@retail/capacity"
import { ActorFaults, CapacityEvents, CapacityNetwork, StockConfig, StockEvents, StockReplica } from "@retail/service-capacity"
import { CapacityRepository, Database, StockRepository } from "@retail/store"
import { Effect, Layer, Logger, Option } from "effect"

/** Fault injection: each armed `actor|step` makes the actor die there that many times. */
const armed = new Map<string, number>()
const arm = (actor: string, step: "reload" | "message", times: number) => armed.set(`${actor}|${step}`, times)
const Faults = Layer.succeed(ActorFaults, {
  before: (actor, step) =>
    Effect.suspend(() => {
      const left = armed.get(`${actor}|${step}`) ?? 0
      if (left === 0) return Effect.void
      armed.set(`${actor}|${step}`, left - 1)
      return Effect.die(new Error(`injected fault in ${actor} (${step})`))
    })
})

const logs: Array<string> = []
const CapturedLogs = Logger.layer([
  Logger.make(({ message }) => {
    logs.push(Array.isArray(message) ? message.map(String).join(" ") : String(message))
  })
])

const Store = Layer.mergeAll(CapacityRepository.layer, StockRepository.layer).pipe(
  Layer.provideMerge(Database.layer({
    url: Option.fromNullishOr(process.env["DATABASE_URL"]),
    dataDir: Database.IN_MEMORY,
    poolSize: 5
  }))
)

const Stock = StockReplica.layer.pipe(
  Layer.provide(StockEvents.None),
  Layer.provide(Layer.succeed(StockConfig, { stream: Option.none(), reconcileIntervalMs: 0 }))
)

const Network = CapacityNetwork.layer.pipe(
  Layer.provide(CapacityEvents.None),
  Layer.provide(Stock),
  Layer.provideMerge(Store),
  Layer.provide(Faults),
  Layer.provide(CapturedLogs)
)

// A real database keeps rows of earlier runs: every run works on its own future day.
const DAY_MS = 86_400_000
const runDay = new Date(Date.UTC(2030, 0, 1) + DAY_MS * Math.floor(Math.random() * 20_000)).toISOString().slice(0, 10)
const day = Option.getOrThrow(parseDay(runDay))
const run = crypto.randomUUID().slice(0, 8)

const picking = (node: string, amount: number) => ({ resource: { _tag: "Picking" as const, node, pool: "ALL" as const }, date: runDay, amount })

/** What the node's actor has published for the run day, and what Postgres holds. */
const pickingSeen = (node: string) =>
  Effect.gen(function*() {
    const network = yield* CapacityNetwork
    const repository = yield* CapacityRepository
    const published = network.peek().nodes.get(node)?.picking.NORMAL.used.get(day) ?? 0
    const stored = (yield* repository.nodeLedger(node, runDay, runDay)).usage.find((row) => row.kind === "PICKING")?.used ?? 0
    return { published, stored }
  })

describe("capacity actors", () => {
  layer(Network, { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("one actor per node, route and zone of the network", () =>
      Effect.gen(function*() {
        const network = yield* CapacityNetwork
        const { document } = yield* network.current
        const keys = yield* network.actorKeys
        expect(keys).toHaveLength(document.nodes.length + document.routes.length + document.zones.length)
        expect(keys).toContain("node:CD-LURIN")
        expect(keys).toContain("route:R-LURIN-SUR-N")
        expect(keys).toContain("zone:LIMA-MODERNA")
      }))

    it.effect("a node actor that crashes on a message is restarted, reloads from Postgres and answers again", () =>
      Effect.gen(function*() {
        const network = yield* CapacityNetwork
        const repository = yield* CapacityRepository
        const node = "TD-SAN-ISIDRO"
        // A change the actor never hears of (written straight to Postgres): only a reload shows it.
        const direct = yield* repository.consume(`direct-${run}`, [{ use: picking(node, 7), total: 120 }])
        expect(direct._tag).toBe("Applied")
        expect(yield* pickingSeen(node)).toEqual({ published: 0, stored: 7 })

        arm(`node:${node}`, "message", 1)
        logs.length = 0
        const outcome = yield* network.consumeUses(`crash-${run}`, [picking(node, 2)])
        expect(outcome._tag).toBe("Applied")
        // Answered after the restart's reload: the ledger is Postgres', the direct write included.
        expect(yield* pickingSeen(node)).toEqual({ published: 9, stored: 9 })
        expect(logs.some((line) => line.includes(`capacity actor node:${node} failed`))).toBe(true)

        // And it keeps answering.
        yield* network.consumeUses(`after-${run}`, [picking(node, 1)])
        expect(yield* pickingSeen(node)).toEqual({ published: 10, stored: 10 })
        yield* network.release(`after-${run}`)
        expect(yield* pickingSeen(node)).toEqual({ published: 9, stored: 9 })
      }))

    it.effect("an actor whose reload keeps failing is retried until it loads, and the network change waits for it", () =>
      Effect.gen(function*() {
        const network = yield* CapacityNetwork
        const repository = yield* CapacityRepository
        const node = "TD-SURCO"
        yield* repository.consume(`direct-surco-${run}`, [{ use: picking(node, 4), total: 120 }])
        arm(`node:${node}`, "reload", 3)
        logs.length = 0
        // Replacing the network reconfigures every actor: each reloads its usage.
        const { document } = yield* network.current
        yield* network.replace(document)
        expect(armed.get(`node:${node}|reload`)).toBe(0)
        expect(logs.filter((line) => line.includes(`capacity actor node:${node} failed`))).toHaveLength(3)
        expect(yield* pickingSeen(node)).toEqual({ published: 4, stored: 4 })
      }))

    it.effect("reconciling shows usage committed elsewhere whose event never came, releases to zero included", () =>
      Effect.gen(function*() {
        const network = yield* CapacityNetwork
        const repository = yield* CapacityRepository
        const node = "TD-MIRAFLORES"
        // Written straight to Postgres: as if another process committed it and died before publishing.
        yield* repository.consume(`lost-${run}`, [{ use: picking(node, 5), total: 120 }])
        expect(yield* pickingSeen(node)).toEqual({ published: 0, stored: 5 })
        yield* network.reconcile
        expect(yield* pickingSeen(node)).toEqual({ published: 5, stored: 5 })

        yield* repository.release(`lost-${run}`)
        expect(yield* pickingSeen(node)).toEqual({ published: 5, stored: 0 })
        yield* network.reconcile
        expect(yield* pickingSeen(node)).toEqual({ published: 0, stored: 0 })
      }))

    it.effect("evaluation sees a consumption without a snapshot rebuild", () =>
      Effect.gen(function*() {
        const network = yield* CapacityNetwork
        const before = network.peek()
        yield* network.consumeUses(`seen-${run}`, [picking("TD-LA-MOLINA", 3)])
        // The same snapshot object; its node reads the actor's newly published usage.
        expect(network.peek()).toBe(before)
        expect(before.nodes.get("TD-LA-MOLINA")?.picking.NORMAL.used.get(day)).toBe(3)
      }))
  })
})
