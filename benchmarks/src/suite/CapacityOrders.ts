import { buildSnapshot, decodeNetwork, demoNetwork, DispatchOrder, ledgerFromUses, resourceKey, usesOfOrder } from "@retail/capacity"
import { columnsOf } from "@retail/store"
import { Result, Schema } from "effect"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { type Benchmark, BenchmarkFailure, figure, type Figure } from "../Benchmark.ts"
import { databaseUrl, redisUrl } from "../StoreUrls.ts"
import { daysAfter, runMonday } from "../soak/CapacityTraffic.ts"
import { ledgerText, verifyCapacityInDatabase } from "../soak/Verify.ts"
import { decodeOffers, orderOf } from "../support/CapacityOrders.ts"
import { runToEnd } from "../support/ChildProcess.ts"
import { post } from "../support/Http.ts"
import { cpuSharesDuring, databaseCpuDuring } from "../support/ProcessCpu.ts"
import { type ServerHandle, startServer } from "../support/ServerProcess.ts"
import { METRICS_ON_PUBLIC_PORT, scrapeServer } from "./MetricsCheck.ts"
import { BENCH_CAPACITY_KEY, runTag } from "../support/Tokens.ts"

/** Orders placed before the measured cases, so that the server's order path is compiled (JIT) as in service. */
const WARM_UP_ORDERS = (smoke: boolean) => (smoke ? 50 : 2000)
/** The concurrent clients of each case (issue 22). */
const CLIENTS = [16, 64] as const
const GOAL = "issue 22"
/** Orders taken by each database statement (services/capacity/src/OrderGroups.ts). */
const GROUP_SIZE = "capacity_order_group_size"
const ORDERS_LOAD = fileURLToPath(new URL("../support/ordersLoadMain.ts", import.meta.url))
const headers = { authorization: `Bearer ${BENCH_CAPACITY_KEY}`, "content-type": "application/json" }

/** One district per home-delivery zone of the demo network (Balnearios del Sur, two days a week, left out). */
const DISTRICTS = ["150122", "150101", "150103", "150117", "150140", "070101"] as const
const CDS = ["CD-LURIN", "CD-CALLAO"] as const
const STORES = [
  "TD-MIRAFLORES", "TD-SAN-ISIDRO", "TD-SURCO", "TD-LA-MOLINA", "TD-SAN-MIGUEL", "TD-JESUS-MARIA", "TD-LOS-OLIVOS",
  "TD-SJL", "TD-ATE", "TD-CHORRILLOS", "TD-SAN-BORJA", "TD-VES", "TD-CALLAO"
] as const

const item = (origin: string, entityType: string, destination: string, deliveryMode: string) => ({
  origin, entityType, skuCode: "SKU-CELULAR-A54", zone: "", dispatchType: "NORMAL", quantity: 1,
  destination, latitude: -12.1, longitude: -77.0, deliveryMode, weight: 1
})

/** Variant A questions for one purchase date: home delivery from each CD to each zone, and pickup at each store. */
const questionsOn = (purchaseDate: string) => [
  ...CDS.flatMap((cd) => DISTRICTS.map((district) => ({ purchaseDate, items: [item(cd, "CD", district, "HOME_DELIVERY")] }))),
  ...STORES.map((store) => ({ purchaseDate, items: [item(store, "TD", store, "STORE_WITHDRAWAL")] }))
]

const demoSnapshot = () =>
  Result.match(decodeNetwork(demoNetwork), {
    onFailure: (error) => {
      throw new BenchmarkFailure(`the demo network does not decode: ${error.message}`)
    },
    onSuccess: (document) => buildSnapshot(document, ledgerFromUses([]))
  })

/** An order as it goes on the wire without its orderId, and the ledger rows it must leave when applied (one per resource and day). */
interface Offer {
  readonly text: string
  readonly rows: string
}

/** The rows an order takes (usesOfOrder over the demo network, uses on one resource and day added up), as the end check compares them. */
const decodeOrder = Schema.decodeUnknownResult(DispatchOrder)
const rowsOf = (snapshot: ReturnType<typeof demoSnapshot>, sent: unknown): string | undefined => {
  const order = decodeOrder(sent)
  if (Result.isFailure(order)) return undefined
  const uses = usesOfOrder(snapshot, order.success)
  if (Result.isFailure(uses)) return undefined
  const byKey = new Map<string, { readonly columns: ReturnType<typeof columnsOf>; readonly day: string; units: number }>()
  for (const use of uses.success) {
    const key = `${resourceKey(use.resource)}|${use.date}`
    const known = byKey.get(key)
    if (known === undefined) byKey.set(key, { columns: columnsOf(use.resource), day: use.date, units: use.amount })
    else known.units += use.amount
  }
  return ledgerText([...byKey.values()].map((row) => ({ ...row.columns, day: row.day, units: row.units })))
}

/** Offers of `days` purchase dates from `firstDay` on, each an answer's first dispatch ordered for one unit. */
const offersOf = async (server: ServerHandle, firstDay: string, days: number): Promise<ReadonlyArray<Offer>> => {
  const snapshot = demoSnapshot()
  const offers: Array<Offer> = []
  for (let day = 0; day < days; day++) {
    for (const question of questionsOn(daysAfter(firstDay, day))) {
      const answer = await post(`${server.url}/v1/delivery/capacity`, JSON.stringify(question), headers)
      if (answer.status !== 200) continue
      const decoded = decodeOffers(answer.text)
      if (decoded._tag === "Failure") continue
      const { orderId: _, ...order } = orderOf(decoded.success[0], "-", 1)
      const rows = rowsOf(snapshot, orderOf(decoded.success[0], "-", 1))
      if (rows !== undefined) offers.push({ text: JSON.stringify(order), rows })
    }
  }
  if (offers.length === 0) throw new BenchmarkFailure("no capacity answer on the demo network could be ordered")
  return offers
}

const Result_ = Schema.Struct({
  duration: Schema.Number,
  errors: Schema.Number,
  timeouts: Schema.Number,
  statusCodeStats: Schema.Record(Schema.String, Schema.Struct({ count: Schema.Number })),
  latency: Schema.Struct({ p50: Schema.Number, p99: Schema.Number, max: Schema.Number })
})
const LoadOutput = Schema.Struct({ result: Result_, applied: Schema.Array(Schema.String), alreadyApplied: Schema.Array(Schema.String) })
const decodeLoadOutput = Schema.decodeUnknownResult(Schema.fromJsonString(LoadOutput))

/** autocannon (its own process) placing new orders on the offers in turn, `connections` at a time. */
const placeOrders = async (server: ServerHandle, offers: ReadonlyArray<Offer>, prefix: string, connections: number, amount: number) => {
  const file = join(tmpdir(), `retail-bench-orders-${runTag()}.json`)
  const out = `${file}.out`
  writeFileSync(file, JSON.stringify({
    url: `${server.url}/v1/delivery/capacity/consumptions`,
    connections,
    seconds: 0,
    amount,
    headers,
    offers: offers.map((offer) => offer.text),
    prefix,
    out
  }))
  try {
    await runToEnd(process.execPath, ["--import", "tsx", ORDERS_LOAD, file], "autocannon (orders)")
    return Result.getOrElse(decodeLoadOutput(readFileSync(out, "utf8")), (error) => {
      throw new BenchmarkFailure(`the orders load wrote no result: ${error.message.slice(0, 300)}`)
    })
  } finally {
    rmSync(file, { force: true })
    rmSync(out, { force: true })
  }
}

export const capacityOrders: Benchmark = {
  name: "capacity-orders",
  description: `POST /v1/delivery/capacity/consumptions at scale on the demo network: autocannon places new orders (each its own orderId, one unit of an answer's first dispatch: home delivery from both CDs to six zones and pickup at 13 stores, over many purchase dates) flat out at ${CLIENTS.join(" and ")} concurrent clients, --size thousand orders each; orders applied per second, p50/p99, the server's CPU per applied order (and PostgreSQL's and Redis's); then the database is checked: no resource used beyond its total, usage equal to the ledger, and every order answered 200 APPLIED holding exactly the ledger rows it takes (no other order of the run held).`,
  sizeUnit: "thousand orders per case",
  defaultSize: 5,
  smokeSize: 0.2,
  configuration: () =>
    `server under test: ${databaseUrl() === undefined ? "embedded PostgreSQL server (npm start's default database), data in a temporary DATA_DIR" : "PostgreSQL (DATABASE_URL)"}, ` +
    `${redisUrl() === undefined ? "no Redis (no capacity events)" : "Redis (REDIS_URL): capacity events published and followed"}, the npm start bundle with its Node flags, RUN_WORKERS=false`,
  open: async (setup) => {
    const smoke = setup.scale === "smoke"
    const days = smoke ? 2 : 20
    const database = databaseUrl()
    setup.note(`Offers: ${days} purchase dates from a Monday of its own per run (2028 on), ${CDS.length * DISTRICTS.length + STORES.length} questions a day; each order takes one unit; a fresh server per run, warmed up with ${WARM_UP_ORDERS(smoke)} orders at 16 clients; each case places ${Math.round(setup.size * 1000)} orders (autocannon's --amount: every answer is read, so the end check knows each order's outcome).`)
    if (database === undefined) setup.note("Database embedded: the server's embedded PostgreSQL server keeps its data in a temporary folder (DATA_DIR), which the end check opens after the server has stopped.")

    const run = async (ctx: { readonly runIndex: number }): Promise<ReadonlyArray<Figure>> => {
      const dataDir = mkdtempSync(join(tmpdir(), "retail-bench-orders-pg-"))
      const server = await startServer({
        RUN_WORKERS: "false",
        API_KEY_RATE_LIMIT_PER_SECOND: "0",
        ...METRICS_ON_PUBLIC_PORT,
        ...(database === undefined ? { DATA_DIR: dataDir } : {})
      }, setup.progress)
      const tag = runTag()
      const prefix = `orders-${tag}-`
      const firstDay = runMonday()
      let stopped = false
      try {
        const offers = await offersOf(server, firstDay, days)
        const rowsByOffer = new Map(offers.map((offer) => [offer.text, offer.rows]))
        const expected = new Map<string, string>()
        const figures: Array<Figure> = []
        const problems: Array<string> = []
        const place = async (name: string, connections: number, amount: number) => {
          const placed = await placeOrders(server, offers, `${prefix}${name}-`, connections, amount)
          for (const orderId of placed.applied) {
            const n = Number(orderId.slice(orderId.lastIndexOf("-") + 1))
            expected.set(orderId, rowsByOffer.get(offers[n % offers.length]?.text ?? "") ?? "")
          }
          const statuses = placed.result.statusCodeStats
          const unexpected = Object.entries(statuses).filter(([status]) => status !== "200" && status !== "409")
          if (unexpected.length > 0 || placed.result.errors > 0 || placed.result.timeouts > 0 || placed.alreadyApplied.length > 0) {
            problems.push(`${name}: unexpected answers ${JSON.stringify(statuses)}, ${placed.result.errors} errors, ${placed.result.timeouts} timeouts, ${placed.alreadyApplied.length} ALREADY_APPLIED for new order ids`)
          }
          return placed
        }
        await place("warm", 16, WARM_UP_ORDERS(smoke))
        const ownDatabase = database === undefined ? undefined : new URL(database).pathname.slice(1)
        for (const clients of CLIENTS) {
          const amount = Math.round(setup.size * 1000)
          const before = await scrapeServer(server)
          const inDatabase = await databaseCpuDuring(ownDatabase ?? "", () => cpuSharesDuring([server.pid], () => place(`c${clients}`, clients, amount)))
          const after = await scrapeServer(server)
          const statements = after.value(GROUP_SIZE) - before.value(GROUP_SIZE)
          const perStatement = statements === 0 ? 0 : (after.sum(GROUP_SIZE) - before.sum(GROUP_SIZE)) / statements
          const measured = { ...inDatabase.result, postgres: ownDatabase === undefined ? undefined : inDatabase.cpuSeconds }
          const placed = measured.result
          const applied = placed.applied.length
          const refused = placed.result.statusCodeStats["409"]?.count ?? 0
          const perOrder = (seconds: number | undefined) => (seconds === undefined || applied === 0 ? [] : [seconds / applied * 1000])
          const name = `${clients} clients`
          setup.progress(`${name}: ${(applied / placed.result.duration).toFixed(0)} orders/s applied, p50 ${placed.result.latency.p50} ms, p99 ${placed.result.latency.p99} ms, ${refused} refused; server CPU ${perOrder(measured.servers)[0]?.toFixed(3) ?? "?"} ms per order; ${perStatement.toFixed(1)} orders per statement`)
          figures.push(
            figure(`${name}: orders applied/s`, "orders/s", applied / placed.result.duration, { goal: { on: "median", atLeast: 1000, source: GOAL } }),
            figure(`${name}: p50 latency`, "ms", placed.result.latency.p50, { better: "lower" }),
            figure(`${name}: p99 latency`, "ms", placed.result.latency.p99, { better: "lower", goal: { on: "median", below: 50, source: GOAL } }),
            figure(`${name}: max latency`, "ms", placed.result.latency.max, { better: "lower" }),
            ...perOrder(measured.servers).map((ms) => figure(`${name}: server CPU per applied order (all threads)`, "ms", ms, { better: "lower", goal: { on: "median", atMost: 0.5, source: GOAL } })),
            ...perOrder(measured.postgres).map((ms) => figure(`${name}: PostgreSQL CPU per applied order (the backends of DATABASE_URL's database)`, "ms", ms, { better: "lower" })),
            ...perOrder(measured.redis).map((ms) => figure(`${name}: Redis CPU per applied order (the whole redis-server, shared)`, "ms", ms, { better: "lower" })),
            figure(`${name}: orders per database statement (mean; ${GROUP_SIZE} over the case)`, "orders", perStatement),
            figure(`${name}: orders applied`, "orders", applied),
            figure(`${name}: orders refused (409, capacity gone)`, "orders", refused, { better: "lower" })
          )
        }
        await server.stop()
        stopped = true
        setup.progress(`checking the database: ${expected.size} orders applied`)
        const verified = await verifyCapacityInDatabase(database, dataDir, {
          prefix,
          held: new Set(expected.keys()),
          fromDay: firstDay,
          toDay: daysAfter(firstDay, days + 21),
          ledgerOf: expected
        })
        problems.push(...verified.problems)
        figures.push(
          figure("after the run: usage rows above their total (oversold)", "rows", verified.oversold, { better: "lower", goal: { on: "median", atMost: 0, source: GOAL } }),
          figure("after the run: orders answered 200 without exactly their ledger rows", "orders", verified.ordersWithoutLedger, { better: "lower", goal: { on: "median", atMost: 0, source: GOAL } }),
          figure("after the run: capacity usage rows checked", "rows", verified.capacityRows)
        )
        if (problems.length > 0) throw new BenchmarkFailure(`run ${ctx.runIndex + 1}: ${problems.length} problem(s): ${problems.slice(0, 5).join("; ")}`, figures)
        return figures
      } finally {
        if (!stopped) await server.stop()
        rmSync(dataDir, { recursive: true, force: true })
      }
    }
    return { run, close: async () => undefined }
  }
}
