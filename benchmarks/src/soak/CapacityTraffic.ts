import { writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { BenchmarkFailure } from "../Benchmark.ts"
import { type CapacityRequestKind, variantA, variantBAllModesSearch } from "../suite/Capacity.ts"
import { autocannon } from "../support/Autocannon.ts"
import { decodeOffers, type Offer, orderOf } from "../support/CapacityOrders.ts"
import { type Answer, post } from "../support/Http.ts"
import type { ServerHandle } from "../support/ServerProcess.ts"
import { BENCH_CAPACITY_KEY, runTag } from "../support/Tokens.ts"
import { paced, Tally, timed } from "./Tally.ts"

const headers = { authorization: `Bearer ${BENCH_CAPACITY_KEY}` }
const ITEMS = 5

/**
 * POST /v1/delivery/capacity at a steady rate: variant A and variant B (all modes, origins
 * searched), 5 items each, one autocannon process per variant (--overallRate). Each body's answer
 * is checked before the soak, as the capacity benchmark does: a refused body would measure 400s.
 */
export const capacityQuotes = async (server: ServerHandle, perSecond: number, connections: number) => {
  const variants: ReadonlyArray<CapacityRequestKind> = [variantA(), variantBAllModesSearch()]
  const cases = await Promise.all(variants.map(async (kind) => {
    const text = JSON.stringify(kind.body(ITEMS))
    const answer = await post(`${server.url}${kind.path}`, text, headers)
    const wrong = answer.status === 200 ? kind.wrongAnswer(answer.text, ITEMS) : `answered ${answer.status} ${answer.text.slice(0, 300)}`
    if (wrong !== undefined) throw new BenchmarkFailure(`${kind.label}, ${ITEMS} items: not the expected answer: ${wrong}`)
    const bodyFile = join(tmpdir(), `retail-bench-soak-${kind.id}-${runTag()}.json`)
    writeFileSync(bodyFile, text)
    return { kind, bodyFile, tally: new Tally(`POST /v1/delivery/capacity ${kind.label}, ${ITEMS} items`) }
  }))
  const run = (seconds: number) =>
    Promise.all(cases.map(async (c) => {
      const result = await autocannon({
        url: `${server.url}${c.kind.path}`,
        connections,
        seconds,
        rate: perSecond,
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        bodyFile: c.bodyFile,
        accept: "any"
      })
      c.tally.addCounts(result.statuses, result.errors + result.timeouts)
      return { tally: c.tally, p50: result.p50, p99: result.p99 }
    }))
  return { run, bodyFiles: cases.map((c) => c.bodyFile) }
}

const DAY_MS = 86_400_000
/** A Monday from 2028 on (the demo network has no holidays after 2027), one per run: runs against a kept database never share a day. */
export const runMonday = (): string => new Date(Date.UTC(2028, 0, 3) + 7 * DAY_MS * Math.floor(Math.random() * 2000)).toISOString().slice(0, 10)
export const daysAfter = (date: string, days: number): string => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10)

/** The demo network's stores pick 120 units a day in one pool; pickup at the store takes nothing else. */
export const STORE = "TD-MIRAFLORES"
const pickupAtStore = (purchaseDate: string) => ({
  purchaseDate,
  items: [{
    origin: STORE, entityType: "TD", skuCode: "SKU-CELULAR-A54", zone: "", dispatchType: "NORMAL", quantity: 1,
    destination: STORE, latitude: -12.12, longitude: -77.03, deliveryMode: "STORE_WITHDRAWAL", weight: 1
  }]
})
/** Variant A's one-item home delivery from CD Lurín, asked on another purchase date. */
const homeDeliveryOn = (purchaseDate: string) => {
  const body = variantA().body(1)
  return typeof body === "object" && body !== null ? { ...body, purchaseDate } : body
}

/**
 * Orders placed and given back at a steady rate, on capacity days of their own (a Monday from 2028
 * on): each tick asks for an answer and orders its dispatch (home delivery from CD Lurín, or pickup
 * at a store), and every third applied order is released. One tick in four orders 3 to 5 units
 * from the store on the first answer's day, as a client holding an old answer would: over a
 * minute that asks for more than the store's 120 units, so the soak also sees 409s (no oversell).
 */
export const capacityOrders = (server: ServerHandle, perSecond: number, maxInFlight: number) => {
  const tag = runTag()
  const monday = runMonday()
  const quotes = new Tally("capacity answers for orders (variant A)")
  const consumptions = new Tally("POST /v1/delivery/capacity/consumptions", new Set([200, 409]))
  const releases = new Tally("DELETE /v1/delivery/capacity/consumptions/{orderId}")
  const held = new Set<string>()
  let applied = 0
  const json = { ...headers, "content-type": "application/json" }
  const homeDelivery = homeDeliveryOn(monday)

  const offer = async (body: unknown): Promise<Offer | undefined> => {
    const answer = await timed(quotes, () => post(`${server.url}/v1/delivery/capacity`, JSON.stringify(body), headers))
    if (answer?.status !== 200) return undefined
    const offers = decodeOffers(answer.text)
    if (offers._tag === "Failure") throw new BenchmarkFailure(`a capacity answer is not variant A's: ${answer.text.slice(0, 300)}`)
    return offers.success[0]
  }
  let stale: Promise<Offer | undefined> | undefined

  const order = async (index: number) => {
    const orderId = `soak-${tag}-${index}`
    const holdsOld = index % 4 === 3
    const chosen = holdsOld ? await (stale ??= offer(pickupAtStore(monday))) : await offer(index % 4 === 2 ? pickupAtStore(monday) : homeDelivery)
    if (chosen === undefined) return
    const units = holdsOld ? 3 + (index % 3) : 1 + (index % 2)
    const placed: Answer | undefined = await timed(consumptions, () => post(`${server.url}/v1/delivery/capacity/consumptions`, JSON.stringify(orderOf(chosen, orderId, units)), json))
    if (placed?.status !== 200) return
    held.add(orderId)
    if (++applied % 3 !== 0) return
    const released = await timed(releases, async () => {
      const response = await fetch(`${server.url}/v1/delivery/capacity/consumptions/${orderId}`, { method: "DELETE", headers })
      return { status: response.status, text: await response.text() }
    })
    if (released?.status === 200) held.delete(orderId)
  }

  return {
    tallies: [quotes, consumptions, releases] as const,
    run: (untilMs: number) => paced({ perSecond, untilMs, maxInFlight, tally: consumptions }, order),
    /** Order ids of this run, and those it still holds (applied, not released). */
    orderPrefix: `soak-${tag}-`,
    held: (): ReadonlySet<string> => held,
    firstDay: monday
  }
}
