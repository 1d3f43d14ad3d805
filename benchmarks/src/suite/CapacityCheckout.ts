import { Result, Schema } from "effect"
import { type Benchmark, BenchmarkFailure, figure, type Figure } from "../Benchmark.ts"
import { runMonday } from "../soak/CapacityTraffic.ts"
import { paced, Tally, timed } from "../soak/Tally.ts"
import { autocannon, WARM_UP_NOTE, warmUp } from "../support/Autocannon.ts"
import { type BareServer, startBareServer } from "../support/BareServer.ts"
import { decodeOffers, type Offer, orderOf } from "../support/CapacityOrders.ts"
import { liveDemo, ordersOfBodies } from "../support/LiveDemo.ts"
import { post } from "../support/Http.ts"
import { cpuMicrosPerRequest, cpuOfDuring } from "../support/ProcessCpu.ts"
import { type ServerHandle, startServer, withServerLog } from "../support/ServerProcess.ts"
import { BENCH_CAPACITY_KEY, runTag } from "../support/Tokens.ts"
import { meanSeconds } from "./LoadProducts.ts"
import { type CapacityRequestKind, loadFigures, variantA, variantBAllModesSearch, variantBHomeFixed } from "./Capacity.ts"
import { type Cart, type CartLine, cartStream, type Holder } from "./CheckoutCarts.ts"
import { gcMsOver, METRICS_ON_PUBLIC_PORT, planReusePercent, scrapeServer } from "./MetricsCheck.ts"

const CONNECTIONS = 64
const SEED = 20261122
/** A large retailer's peak: 180,000 orders an hour, each taking capacity from the ledger. */
const ORDERS_PER_SECOND = 50
/** Issue 22's case beyond that peak, reported without a goal: ten times the orders, on variant A's 5-item carts. */
const ORDERS_PER_SECOND_HIGH = 500

/** One kind of request asked with varied carts: how a cart becomes its body. */
interface CheckoutKind {
  readonly kind: CapacityRequestKind
  readonly items: number
  readonly holderTypes: ReadonlyArray<string>
  readonly expressShare: number
  /** The body for a cart, each line from one of the holders `ships` accepts; undefined when a line has none. */
  readonly body: (cart: Cart, purchaseDate: string, ships: Ships) => unknown
}

/** Whether a holder's home delivery of the cart's type reaches the cart's destination (`sku`: one it holds). */
type Ships = (holder: Holder, cart: Cart, sku: string) => boolean

const originOf = (line: CartLine, cart: Cart, ships: Ships, pick: number): Holder | undefined => {
  const able = line.holders.filter((holder) => ships(holder, cart, line.sku))
  return able[pick % Math.max(1, able.length)]
}

const bodyA = (cart: Cart, purchaseDate: string, ships: Ships) => {
  const items = cart.lines.map((line, i) => {
    const origin = originOf(line, cart, ships, i)
    return origin === undefined ? undefined : {
      origin: origin.code,
      entityType: origin.type,
      skuCode: line.sku,
      zone: "",
      dispatchType: cart.dispatchType,
      quantity: line.quantity,
      destination: cart.destination.ubigeo,
      latitude: cart.destination.latitude,
      longitude: cart.destination.longitude,
      deliveryMode: "HOME_DELIVERY",
      weight: line.weight,
      line: "BENCH",
      division: "CHECKOUT",
      measurable: "UN"
    }
  })
  return items.every((item) => item !== undefined) ? { purchaseDate, items } : undefined
}

const deliveryData = (cart: Cart) => ({
  latitude: cart.destination.latitude,
  longitude: cart.destination.longitude,
  ubigeoCode: cart.destination.ubigeo,
  destination: "Av. Benchmark 100"
})

const bodyBHome = (cart: Cart, purchaseDate: string, ships: Ships) => {
  const items = cart.lines.map((line, i) => {
    const origin = originOf(line, cart, ships, i)
    return origin === undefined ? undefined : { skuCode: line.sku, origin: origin.code, quantity: line.quantity, weight: line.weight }
  })
  return items.every((item) => item !== undefined)
    ? { purchaseDate, saleChannel: "WEB", dispatchType: cart.dispatchType, dispatchMode: "HOME_DELIVERY", deliveryData: deliveryData(cart), items }
    : undefined
}

const bodyBAllModes = (cart: Cart, purchaseDate: string) => ({
  purchaseDate,
  saleChannel: "WEB",
  dispatchMode: "ALL_DISPATCH_MODES",
  calculationOptions: { calculate: "SEARCH_ORIGINS_BY_COORDINATES", optimization: "PROXIMITY_STORE", maxDistancePickingStore: 30, maxPickupPoint: 2 },
  deliveryData: deliveryData(cart),
  items: cart.lines.map((line) => ({ skuCode: line.sku, quantity: line.quantity, weight: line.weight }))
})

const HOME_HOLDERS = ["CD", "PRV", "SELLER"]

const checkoutKinds = (): ReadonlyArray<CheckoutKind> => {
  const a = variantA()
  const bHome = variantBHomeFixed()
  return [
    { kind: a, items: 1, holderTypes: HOME_HOLDERS, expressShare: 0.15, body: bodyA },
    { kind: a, items: 5, holderTypes: HOME_HOLDERS, expressShare: 0.15, body: bodyA },
    { kind: bHome, items: 5, holderTypes: HOME_HOLDERS, expressShare: 0.15, body: bodyBHome },
    { kind: variantBAllModesSearch(), items: 5, holderTypes: ["CD", "TD"], expressShare: 0, body: bodyBAllModes }
  ]
}

/**
 * Whether the engine answers the body in-process with every item routed and dated. A refusal
 * (`inProcess` throws BenchmarkFailure for a 400 or a 404) is a no; any other error is a fault
 * of the engine and ends the benchmark.
 */
const answersInFull = (kind: CapacityRequestKind, body: string, items: number): boolean => {
  try {
    return kind.wrongAnswer(kind.inProcess(body), items) === undefined
  } catch (error) {
    if (error instanceof BenchmarkFailure) return false
    throw error
  }
}

/** Routability of one holder to a destination, by the engine in-process on a one-item variant A body (memoised). */
const shipsBy = (a: CapacityRequestKind, purchaseDate: string): Ships => {
  const known = new Map<string, boolean>()
  return (holder, cart, sku) => {
    const key = `${holder.code} ${cart.destination.ubigeo} ${cart.dispatchType}`
    const cached = known.get(key)
    if (cached !== undefined) return cached
    const body = bodyA({ ...cart, lines: [{ sku, holders: [holder], quantity: 1, weight: 1 }] }, purchaseDate, () => true)
    const routed = answersInFull(a, JSON.stringify(body), 1)
    known.set(key, routed)
    return routed
  }
}

/**
 * Bodies of one kind from the cart stream, keeping those the engine answers in full in-process
 * (every item routed, dated and in stock: the benchmark measures answers, not refusals).
 */
const poolOf = (checkout: CheckoutKind, size: number, purchaseDate: string, ships: Ships): ReadonlyArray<string> => {
  const next = cartStream({ seed: SEED + checkout.items, lines: checkout.items, holderTypes: checkout.holderTypes, expressShare: checkout.expressShare })
  const pool: Array<string> = []
  for (let attempts = 0; pool.length < size && attempts < size * 20; attempts++) {
    const body = checkout.body(next(), purchaseDate, ships)
    if (body === undefined) continue
    const text = JSON.stringify(body)
    if (answersInFull(checkout.kind, text, checkout.items)) pool.push(text)
  }
  if (pool.length < size) throw new BenchmarkFailure(`${checkout.kind.label}, ${checkout.items} items: only ${pool.length} of ${size} carts answered in full`)
  return pool
}

/**
 * Orders placed at a steady rate on dispatches of variant A answers; `release` gives back what the
 * applied ones took (outside the measured window), so every case starts from the same ledger.
 */
const orderFlow = (server: ServerHandle, offers: ReadonlyArray<{ readonly offer: Offer; readonly units: number }>) => {
  const tag = runTag()
  const json = { authorization: `Bearer ${BENCH_CAPACITY_KEY}`, "content-type": "application/json" }
  let placed = 0
  const place = async (seconds: number, perSecond: number) => {
    const tally = new Tally("orders", new Set([200, 409]))
    const held: Array<string> = []
    await paced({ perSecond, untilMs: performance.now() + seconds * 1000, maxInFlight: 64, tally }, async (index) => {
      const chosen = offers[(index * 7919) % offers.length]
      if (chosen === undefined) return
      const orderId = `checkout-${tag}-${placed++}`
      const answer = await timed(tally, () => post(`${server.url}/v1/delivery/capacity/consumptions`, JSON.stringify(orderOf(chosen.offer, orderId, chosen.units)), json))
      if (answer?.status === 200) held.push(orderId)
    })
    if (tally.firstUnexpected !== undefined) throw new BenchmarkFailure(tally.firstUnexpected)
    return { held, refused: tally.statuses.get(409) ?? 0, notSent: tally.notSent }
  }
  const release = async (orderIds: ReadonlyArray<string>) => {
    for (const orderId of orderIds) {
      const response = await fetch(`${server.url}/v1/delivery/capacity/consumptions/${orderId}`, { method: "DELETE", headers: json })
      if (response.status !== 200) throw new BenchmarkFailure(`releasing order ${orderId}: ${response.status} ${await response.text()}`)
    }
  }
  return { place, release }
}

/** Mean seconds of a call of `once` over `budgetMs` of calls (`meanSeconds`), after `warmUps` unmeasured ones. */
const warmedEngineSeconds = async (once: () => unknown, warmUps: number, budgetMs: number): Promise<number> => {
  for (let i = 0; i < warmUps; i++) once()
  return meanSeconds(budgetMs, once)
}

/** A figure reported without the goal it would have at the peak's rate. */
const withoutGoal = ({ goal: _goal, ...rest }: Figure): Figure => rest

const decodeQuantities = Schema.decodeUnknownResult(Schema.fromJsonString(Schema.Struct({ items: Schema.Array(Schema.Struct({ quantity: Schema.Number })) })))

/** Of each variant A answer, its first item's dispatch and that dispatch's units (the quantities of its items). */
const offersOf = (bodies: ReadonlyArray<string>, answers: ReadonlyMap<string, string>) =>
  bodies.flatMap((body) => {
    const offers = decodeOffers(answers.get(body) ?? "")
    if (offers._tag === "Failure") return []
    const quantities = Result.getOrElse(decodeQuantities(body), () => ({ items: [] })).items.map((item) => item.quantity)
    const [first] = offers.success
    const units = offers.success.reduce((sum, offer, i) => (offer.dispatchCode === first.dispatchCode ? sum + (quantities[i] ?? 0) : sum), 0)
    return [{ offer: first, units }]
  })

export const capacityCheckout: Benchmark = {
  name: "capacity-checkout",
  description: `POST /v1/delivery/capacity with checkout-like traffic on the demo network: each request a cart drawn at random from a pool of varied carts (customer districts and SKUs by Zipf laws, quantities 1-3, 15% EXPRESS), while orders are placed at ${ORDERS_PER_SECOND}/s on the answers' dispatches (each taking capacity, so the plans that read it are made again), and variant A's 5-item carts again with orders at ${ORDERS_PER_SECOND_HIGH}/s (reported, without goals), ${CONNECTIONS} connections (autocannon), beside a bare node:http server (own process) answering each cart the answer the server gave it before the run.`,
  sizeUnit: "seconds of load per case",
  defaultSize: 2,
  smokeSize: 1,
  open: async (setup) => {
    const poolSize = setup.scale === "smoke" ? 40 : 1000
    const purchaseDate = runMonday()
    const kinds = checkoutKinds()
    const ships = shipsBy(variantA(), purchaseDate)
    const cases = kinds.map((checkout) => {
      const bodies = poolOf(checkout, poolSize, purchaseDate, ships)
      return { label: `${checkout.kind.label}, ${checkout.items} item(s), varied carts`, bodies, path: checkout.kind.path, checkout }
    })
    setup.note(WARM_UP_NOTE)
    setup.note(`Carts: ${poolSize} per case, purchase date ${purchaseDate} (a Monday of its own per run); orders released after each case.`)
    const headers = { "content-type": "application/json", authorization: `Bearer ${BENCH_CAPACITY_KEY}` }
    let server: ServerHandle | undefined
    let bare: BareServer | undefined
    const close = async () => {
      await server?.stop()
      await bare?.stop()
    }
    const answers = new Map<string, string>()
    try {
      server = await startServer({ RUN_WORKERS: "false", ...METRICS_ON_PUBLIC_PORT }, setup.progress)
      for (const c of cases) {
        for (const body of new Set(c.bodies)) {
          const answer = await post(`${server.url}${c.path}`, body, headers)
          const wrong = answer.status === 200 ? c.checkout.kind.wrongAnswer(answer.text, c.checkout.items) : `answered ${answer.status} ${answer.text.slice(0, 300)}`
          if (wrong !== undefined) throw new BenchmarkFailure(`${c.label}: not the expected answer: ${wrong}`)
          answers.set(body, answer.text)
        }
      }
      bare = await startBareServer(Object.fromEntries([...answers].map(([body, text]) => [`/v1/delivery/capacity ${body}`, text])))
    } catch (error) {
      await close()
      throw error
    }
    const target = server
    const limit = bare
    const orderBodies = cases.filter((c) => c.checkout.kind.id === "A").flatMap((c) => c.bodies)
    const orders = orderFlow(target, cases.filter((c) => c.checkout.kind.id === "A").flatMap((c) => offersOf(c.bodies, answers)))
    // In process, the same orders (variant A's dispatches) on a board of their own.
    const live = liveDemo()
    const liveOrders = ordersOfBodies(live.snapshot, orderBodies)
    // A server in service has placed orders before: the order path is warmed up (JIT) as the quotes were.
    try {
      const ordersWarmUp = await orders.place(setup.scale === "smoke" ? 0.5 : 3, ORDERS_PER_SECOND * 4)
      await orders.release(ordersWarmUp.held)
    } catch (error) {
      await close()
      throw error
    }

    const run = async (ctx: { readonly runIndex: number }): Promise<ReadonlyArray<Figure>> => {
      const figures: Array<Figure> = []
      const ordersPerSecond = setup.scale === "smoke" ? 10 : ORDERS_PER_SECOND
      // Orders alone first: what each costs the server, to tell the quotes' share from the orders' below.
      const alone = await cpuOfDuring(target.pid, () => orders.place(setup.size, ordersPerSecond))
      await orders.release(alone.result.held)
      if (alone.cpuSeconds !== undefined && alone.result.held.length > 0) {
        figures.push(figure(`orders alone at ${ordersPerSecond}/s: server CPU per order applied`, "ms", (alone.cpuSeconds / alone.result.held.length) * 1000, { better: "lower" }))
      }
      // Every case at the peak's rate, then variant A's 5-item carts again at ten times it (smoke: 10 and 100/s).
      const highCase = cases.find((c) => c.checkout.kind.id === "A" && c.checkout.items === 5)
      const highRate = ordersPerSecond * (ORDERS_PER_SECOND_HIGH / ORDERS_PER_SECOND)
      const loads = [
        ...cases.map((c) => ({ c, ordersPerSecond, label: c.label, goals: true })),
        ...(highCase === undefined ? [] : [{ c: highCase, ordersPerSecond: highRate, label: `${highCase.label}, orders at ${highRate}/s`, goals: false }])
      ]
      for (const { c, ordersPerSecond, label, goals } of loads) {
        const amount = setup.scale === "smoke" ? { amount: CONNECTIONS * 4 } : {}
        const load = { connections: CONNECTIONS, seconds: setup.size, method: "POST" as const, headers, bodies: { texts: c.bodies, seed: SEED + ctx.runIndex }, ...amount }
        // The warm-ups draw from the same carts with another seed, not the measured load's own sequence.
        const warmUpLoad = { ...load, bodies: { ...load.bodies, seed: load.bodies.seed + 1000 } }
        await warmUp({ ...warmUpLoad, url: `${target.url}${c.path}` })
        const before = await scrapeServer(target)
        // The orders begin when the quotes do: the load's own process takes a moment to start.
        const served = await cpuOfDuring(target.pid, () =>
          withServerLog(target, () => {
            let quotesStarted = () => {}
            const placed = new Promise<void>((started) => (quotesStarted = started)).then(() => orders.place(setup.size, ordersPerSecond))
            return Promise.all([autocannon({ ...load, url: `${target.url}${c.path}`, onStarted: () => quotesStarted() }), placed])
          }))
        const after = await scrapeServer(target)
        const [measured, placed] = served.result
        await warmUp({ ...warmUpLoad, url: `${limit.url}${c.path}` })
        const bareServed = await cpuOfDuring(limit.pid, () => autocannon({ ...load, url: `${limit.url}${c.path}` }))
        const reference = bareServed.result
        await orders.release(placed.held)
        // The engine alone over the same pool (decode, evaluate, encode), warmed up first; no order in
        // between, so plans of repeated dispatches are reused. It does not depend on the orders' rate:
        // measured once per case.
        const engineOnce = (() => {
          let next = 0
          return () => c.checkout.kind.inProcess(c.bodies[next++ % c.bodies.length] ?? "")
        })()
        const warmUps = setup.scale === "smoke" ? 5 : c.bodies.length
        const budgetMs = setup.scale === "smoke" ? 20 : 1000
        const engineSeconds = goals ? await warmedEngineSeconds(engineOnce, warmUps, budgetMs) : undefined
        // The same with orders taken in between at the load's rate (one per requests/s ÷ orders/s
        // requests), on a board they change: what the orders cost the answers (plans made again,
        // their parts and text), without the server's HTTP and its noise.
        const orderEvery = Math.max(1, Math.round(measured.requestsPerSecond / ordersPerSecond))
        const withOrdersSeconds = goals && liveOrders.length > 0
          ? await (async () => {
            let next = 0
            let taken = 0
            const once = () => {
              if (next % orderEvery === 0) live.take(liveOrders[taken++ % liveOrders.length] ?? [])
              return c.checkout.kind.inProcessOn(live.snapshot, c.bodies[next++ % c.bodies.length] ?? "")
            }
            try {
              return await warmedEngineSeconds(once, warmUps, budgetMs)
            } finally {
              live.releaseAll()
            }
          })()
          : undefined
        const planReuse = planReusePercent(before, after)
        const gc = { major: gcMsOver(before, after, "major"), minor: gcMsOver(before, after, "minor") }
        setup.progress(`${label}: ${measured.requestsPerSecond.toFixed(0)} req/s (bare ${reference.requestsPerSecond.toFixed(0)}), p99 ${measured.p99} ms, ${placed.held.length} orders applied, ${placed.refused} refused, ${placed.notSent} not sent, plans reused ${planReuse.toFixed(1)}%, GC ${gc.major.toFixed(0)} ms major ${gc.minor.toFixed(0)} ms minor (METRICS_GC=true counts it)${withOrdersSeconds === undefined || engineSeconds === undefined ? "" : `; in process ${(engineSeconds * 1e6).toFixed(1)} µs a request, ${(withOrdersSeconds * 1e6).toFixed(1)} µs with an order every ${orderEvery}`}`)
        const bareName = "bare node:http, same answers, same run"
        const serverCpu = cpuMicrosPerRequest(served.cpuSeconds, measured.requests)
        const bareCpu = cpuMicrosPerRequest(bareServed.cpuSeconds, reference.requests)
        figures.push(
          ...loadFigures(label, measured, reference, bareName).map((f) => (goals ? f : withoutGoal(f))),
          ...(serverCpu === undefined || bareCpu === undefined ? [] : [
            figure(`${label}: server CPU per request (all threads, the orders' work included)`, "µs", serverCpu, {
              better: "lower",
              limit: { name: bareName, sample: bareCpu }
            })
          ]),
          ...(engineSeconds === undefined ? [] : [figure(`${label}: engine time per request in-process (decode, evaluate, encode; no order placed)`, "µs", engineSeconds * 1e6, { better: "lower" })]),
          ...(withOrdersSeconds === undefined ? [] : [
            figure(`${label}: engine time per request in-process, an order taken every (requests/s ÷ orders/s of the load) requests`, "µs", withOrdersSeconds * 1e6, { better: "lower" })
          ]),
          figure(`${label}: plans reused (capacity_plan_cache_total hits over plans asked during the load, /metrics)`, "%", planReuse),
          figure(`${label}: orders applied meanwhile`, "orders", placed.held.length),
          figure(`${label}: orders refused meanwhile (409, capacity gone)`, "orders", placed.refused, { better: "lower" }),
          figure(`${label}: orders not sent (64 already waiting)`, "orders", placed.notSent, { better: "lower" })
        )
      }
      return figures
    }
    return { run, close }
  }
}
