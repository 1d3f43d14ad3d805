/**
 * Prototype measurement (issue 22, orders in groups): what one group statement costs per order when
 * every order fits (capacity_consume_many's one pass), when its last order is refused (the one pass,
 * then the orders one by one), and the same orders each alone (capacity_consume), in alternating
 * rounds on one connection against the same PostgreSQL. Wall time per order, one statement at a
 * time (the database's time and one round trip; nothing else runs).
 *   DATABASE_URL=... npx tsx benchmarks/src/proto/orderGroups.ts [orders per group] [groups per round] [rounds]
 */
import { CapacityRepository, Database, type GroupedOrder } from "@retail/store"
import { Effect, Layer, ManagedRuntime, Option } from "effect"
import { loadavg } from "node:os"

const perGroup = Number(process.argv[2] ?? 30)
const groups = Number(process.argv[3] ?? 40)
const rounds = Number(process.argv[4] ?? 3)
/** Usage rows the orders of a round share, like the benchmark's hot rows: each order takes two of them. */
const ROWS = 12

const url = process.env["DATABASE_URL"]
if (url === undefined) throw new Error("DATABASE_URL is required")
const runtime = ManagedRuntime.make(
  CapacityRepository.layer.pipe(Layer.provideMerge(Database.layer({ url: Option.some(url), dataDir: "memory://", poolSize: 1 })))
)

type Mode = "fit" | "last refused" | "alone"

const ordersOf = (run: string, group: number, refuseLast: boolean): ReadonlyArray<GroupedOrder> =>
  Array.from({ length: perGroup }, (_, i) => {
    const n = group * perGroup + i
    const use = (row: number, amount: number) => ({
      use: { resource: { _tag: "Picking" as const, node: `PROTO-${run}-${row % ROWS}`, pool: "ALL" as const }, date: "2032-01-05", amount },
      total: 1_000_000
    })
    // A row the orders before it in the group used already, with a total of 1: refused in the statement.
    const refused = refuseLast && i === perGroup - 1
    return {
      orderId: `proto-${run}-${n}`,
      uses: refused ? [{ ...use(n, 1), total: 1 }] : [use(n, 1), use(n + 5, 1)],
      request: { n }
    }
  })

const round = async (mode: Mode, r: number) => {
  const run = `${r}-${mode.replace(" ", "")}-${Date.now()}`
  const batches = Array.from({ length: groups }, (_, g) => ordersOf(run, g, mode === "last refused"))
  const started = performance.now()
  await runtime.runPromise(Effect.flatMap(CapacityRepository, (capacity) =>
    Effect.forEach(batches, (orders) =>
      mode === "alone"
        ? Effect.forEach(orders, (order) => Effect.result(capacity.consume(order.orderId, order.uses, order.request)), { discard: true })
        : Effect.asVoid(capacity.consumeMany(orders)), { discard: true })))
  return ((performance.now() - started) * 1000) / (groups * perGroup)
}

const modes: ReadonlyArray<Mode> = ["fit", "last refused", "alone"]
const results = new Map<Mode, Array<number>>(modes.map((mode) => [mode, []]))
await round("fit", -1) // warm-up: plans cached, connection open
for (let r = 0; r < rounds; r++) {
  for (const mode of r % 2 === 0 ? modes : [...modes].reverse()) results.get(mode)!.push(await round(mode, r))
}
console.log(`${perGroup} orders a group, ${groups} groups a round, ${rounds} rounds, load ${loadavg().map((l) => l.toFixed(1)).join(" ")}`)
for (const [mode, samples] of results) console.log(`${mode}: ${samples.map((us) => us.toFixed(0)).join(", ")} µs an order`)
await runtime.dispose()
