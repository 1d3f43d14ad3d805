import type { Snapshot } from "@retail/capacity"
import { DeliveryResponseA, DeliveryResponseB } from "@retail/capacity-wire"
import { Result, Schema } from "effect"
import { writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Benchmark, BenchmarkFailure, figure, type Figure } from "../Benchmark.ts"
import { autocannon, bodyFileLoad, type LoadResult, WARM_UP_NOTE, warmUp } from "../support/Autocannon.ts"
import { type BareServer, startBareServer } from "../support/BareServer.ts"
import { post } from "../support/Http.ts"
import { type ServerHandle, startServer, withServerLog } from "../support/ServerProcess.ts"
import { answerVariantA, answerVariantB, demoSnapshot } from "../support/CapacityInProcess.ts"
import { BENCH_CAPACITY_KEY } from "../support/Tokens.ts"
import { meanSeconds } from "./LoadProducts.ts"
import { capacityFromMetrics, METRICS_ON_PUBLIC_PORT, scrapeServer } from "./MetricsCheck.ts"

const ITEM_COUNTS = [1, 5, 20] as const
const CONNECTIONS = 64

/**
 * One kind of request to POST /v1/delivery/capacity. Add one by appending to `capacityRequests`:
 * its bodies of 1, 5 and 20 items, the in-process path it takes (JSON text in, JSON text out) and
 * what a right answer looks like (checked on the server's answer and the in-process one before
 * anything is measured: a body the server refuses must fail the benchmark, not measure fast 400s).
 */
export interface CapacityRequestKind {
  /** In figure names: "variant A", "variant B home delivery, fixed origins", ... */
  readonly label: string
  /** In file and URL paths. */
  readonly id: string
  readonly path: string
  readonly body: (items: number) => unknown
  /** The engine's own work for one request body, as the endpoint does it, without HTTP. */
  readonly inProcess: (body: string) => Uint8Array
  /** The same on another snapshot (one whose usage orders change: LiveDemo.ts). */
  readonly inProcessOn: (snapshot: Snapshot, body: string) => Uint8Array
  /** Why a 200 answer's JSON text is not the expected answer to a body of `items` items, or undefined when it is. */
  readonly wrongAnswer: (answer: string | Uint8Array, items: number) => string | undefined
}

const decodedOr = <S extends Schema.ConstraintDecoder<unknown>>(schema: S, answer: string | Uint8Array): Result.Result<S["Type"], string> =>
  Result.mapError(Schema.decodeUnknownResult(Schema.fromJsonString(schema))(typeof answer === "string" ? answer : Buffer.from(answer).toString("utf8")), (error) => `not the response schema: ${error.message.slice(0, 300)}`)

/** SKUs both CDs of the demo network stock by the hundred: every item is routed, none refused for stock. */
const CD_SKUS = ["SKU-TV-55-4K", "SKU-LAPTOP-14", "SKU-CELULAR-A54", "SKU-AUDIFONOS-BT", "SKU-SILLA-OFICINA"] as const

/** Home deliveries from CD Lurín to three Lima Moderna districts, SKUs the CD holds (three dispatches from 3 items on). */
const variantAItem = (i: number) => ({
  origin: "CD-LURIN",
  entityType: "CD",
  skuCode: CD_SKUS[i % CD_SKUS.length],
  zone: "",
  dispatchType: "NORMAL",
  quantity: 1 + (i % 3),
  destination: ["150122", "150131", "150130"][i % 3] ?? "150122",
  latitude: -12.12,
  longitude: -77.03,
  deliveryMode: "HOME_DELIVERY",
  weight: 1 + (i % 5),
  line: "BENCH",
  division: "ELECTRO",
  measurable: "UN"
})

export const variantA = (): CapacityRequestKind => {
  const snapshot = demoSnapshot()
  return {
    label: "variant A",
    id: "A",
    path: "/v1/delivery/capacity",
    body: (items) => ({ purchaseDate: "2027-03-01", items: Array.from({ length: items }, (_, i) => variantAItem(i)) }),
    inProcess: (body) => answerVariantA(snapshot, body),
    inProcessOn: (on, body) => answerVariantA(on, body),
    wrongAnswer: (answer, items) =>
      Result.match(decodedOr(DeliveryResponseA, answer), {
        onFailure: (problem) => problem,
        onSuccess: (results) =>
          results.length !== items
            ? `${results.length} results for ${items} items`
            : results.some((r) => r.route === null || r.deliveryDates.length === 0 || r.detailedCapacityError.length > 0)
            ? "an item without a route, delivery dates, or with a capacity error"
            : undefined
      })
  }
}

/** Held by stores and CD Lurín (docs/capacity.md, the demo network), so origin search picks among several nodes. */
const SEARCHED_SKUS = ["SKU-CELULAR-A54", "SKU-AUDIFONOS-BT", "SKU-SMARTWATCH-GT", "SKU-LAPTOP-14"] as const
const MIRAFLORES = { latitude: -12.1219, longitude: -77.0297, ubigeoCode: "150122", destination: "Av. Larco 345" }

interface VariantBShape {
  readonly id: string
  readonly label: string
  readonly request: (items: number) => Readonly<Record<string, unknown>>
  readonly item: (i: number) => Readonly<Record<string, unknown>>
  readonly modes: ReadonlyArray<"HOME_DELIVERY" | "STORE_WITHDRAWAL">
}

const variantB = (shape: VariantBShape): CapacityRequestKind => {
  const snapshot = demoSnapshot()
  return {
    label: shape.label,
    id: shape.id,
    path: "/v1/delivery/capacity",
    body: (items) => ({ ...shape.request(items), items: Array.from({ length: items }, (_, i) => shape.item(i)) }),
    inProcess: (body) => answerVariantB(snapshot, body, shape.label),
    inProcessOn: (on, body) => answerVariantB(on, body, shape.label),
    wrongAnswer: (answer, items) =>
      Result.match(decodedOr(DeliveryResponseB, answer), {
        onFailure: (problem) => problem,
        onSuccess: ({ logisticsCapacity: entries, request }) => {
          if (request.items.length !== items) return `the echoed request has ${request.items.length} items, not ${items}`
          const unplaced = entries.filter((e) => e.origin === null || (e.route === null && e.origin !== e.destination) || e.deliveryDates.length === 0)
          if (unplaced.length > 0) return `${unplaced.length} entries without an origin, a route or delivery dates: ${unplaced[0]?.message ?? ""}`
          const refused = entries.filter((e) => e.detailedCapacityError.length > 0)
          if (refused.length > 0) return `${refused.length} entries with a capacity or stock error: ${JSON.stringify(refused[0]?.detailedCapacityError).slice(0, 200)}`
          for (const mode of shape.modes) {
            const shipped = entries.filter((e) => e.dispatchMode === mode).reduce((sum, e) => sum + e.dispatchItems.length, 0)
            if (shipped === 0) return `no ${mode} entry`
            if (mode === "HOME_DELIVERY" && shipped !== items) return `home delivery ships ${shipped} of ${items} items`
          }
          return entries.some((e) => !shape.modes.includes(e.dispatchMode)) ? "an entry of a mode not asked for" : undefined
        }
      })
  }
}

/** Variant B, home delivery to Miraflores from both CDs (origins sent): the engine alone, as variant A. */
export const variantBHomeFixed = (): CapacityRequestKind =>
  variantB({
    id: "B-home-fixed",
    label: "variant B home delivery, fixed origins",
    request: () => ({ purchaseDate: "2027-03-01", saleChannel: "WEB", dispatchMode: "HOME_DELIVERY", deliveryData: MIRAFLORES }),
    item: (i) => ({ skuCode: CD_SKUS[i % CD_SKUS.length], origin: i % 2 === 0 ? "CD-LURIN" : "CD-CALLAO", quantity: 1, weight: 1 + (i % 5) }),
    modes: ["HOME_DELIVERY"]
  })

/** Variant B, every dispatch mode with origins searched by distance and stock: home delivery plus two pickup stores. */
export const variantBAllModesSearch = (): CapacityRequestKind =>
  variantB({
    id: "B-all-search",
    label: "variant B all modes, origins searched",
    request: () => ({
      purchaseDate: "2027-03-01",
      saleChannel: "WEB",
      dispatchMode: "ALL_DISPATCH_MODES",
      calculationOptions: { calculate: "SEARCH_ORIGINS_BY_COORDINATES", optimization: "PROXIMITY_STORE", maxDistancePickingStore: 30, maxPickupPoint: 2 },
      deliveryData: MIRAFLORES
    }),
    item: (i) => ({ skuCode: SEARCHED_SKUS[i % SEARCHED_SKUS.length], quantity: 1, weight: 0.2 + (i % 3) }),
    modes: ["HOME_DELIVERY", "STORE_WITHDRAWAL"]
  })

/** The request kinds measured, each at 1, 5 and 20 items. */
export const capacityRequests = (): ReadonlyArray<CapacityRequestKind> => [variantA(), variantBHomeFixed(), variantBAllModesSearch()]

/**
 * Requests/s, p50, p99 and p99.9 of a load beside the bare server's, with issue 22's goals for every
 * capacity and capacity-checkout case (requests/s at least 0.5x bare: issue 4 had set 0.3x; p99
 * under 20 ms, as issue 4 had).
 */
export const loadFigures = (label: string, measured: LoadResult, reference: LoadResult, bareName: string): ReadonlyArray<Figure> => [
  figure(`${label}: requests/s`, "req/s", measured.requestsPerSecond, {
    limit: { name: bareName, sample: reference.requestsPerSecond },
    goal: { on: "ratio", atLeast: 0.5, source: "issue 22 (issue 4: 0.3)" }
  }),
  figure(`${label}: p50 latency`, "ms", measured.p50, { better: "lower", limit: { name: bareName, sample: reference.p50 } }),
  figure(`${label}: p99 latency`, "ms", measured.p99, {
    better: "lower",
    limit: { name: bareName, sample: reference.p99 },
    goal: { on: "median", below: 20, source: "issues 4 and 22" }
  }),
  figure(`${label}: p99.9 latency`, "ms", measured.p999, { better: "lower", limit: { name: bareName, sample: reference.p999 } })
]

interface Case {
  readonly label: string
  readonly items: number
  readonly kind: CapacityRequestKind
  readonly bodyText: string
  readonly bodyFile: string
  readonly barePath: string
}

export const capacity: Benchmark = {
  name: "capacity",
  description: `POST /v1/delivery/capacity on the demo network (variant A; variant B home delivery from fixed origins; variant B all dispatch modes with origins searched by coordinates) at ${CONNECTIONS} connections (autocannon), beside a bare node:http server (own process) answering the same JSON bytes to the same request in the same run.`,
  sizeUnit: "seconds of load per case",
  defaultSize: 2,
  smokeSize: 1,
  open: async (setup) => {
    setup.note(WARM_UP_NOTE)
    setup.note("Each case sends one body over and over with no order placed meanwhile, so every plan after the first request is reused (docs/capacity.md, \"Plans reused across requests\", has the server's CPU per request when none is).")
    const cases: Array<Case> = capacityRequests().flatMap((kind) =>
      ITEM_COUNTS.map((items) => {
        const bodyText = JSON.stringify(kind.body(items))
        const bodyFile = join(tmpdir(), `retail-bench-capacity-${kind.id}-${items}.json`)
        writeFileSync(bodyFile, bodyText)
        return { label: `${kind.label}, ${items} item(s)`, items, kind, bodyText, bodyFile, barePath: `/${kind.id}-${items}` }
      })
    )
    let server: ServerHandle | undefined
    let bare: BareServer | undefined
    const close = async () => {
      await server?.stop()
      await bare?.stop()
    }
    const headers = { "content-type": "application/json", authorization: `Bearer ${BENCH_CAPACITY_KEY}` }
    try {
      server = await startServer({ RUN_WORKERS: "false", ...METRICS_ON_PUBLIC_PORT }, setup.progress)
      const answers: Record<string, string> = {}
      for (const c of cases) {
        const answer = await post(`${server.url}${c.kind.path}`, c.bodyText, headers)
        if (answer.status !== 200) throw new BenchmarkFailure(`${c.label}: answered ${answer.status} ${answer.text.slice(0, 300)}`)
        const wrong = c.kind.wrongAnswer(answer.text, c.items) ?? c.kind.wrongAnswer(c.kind.inProcess(c.bodyText), c.items)
        if (wrong !== undefined) throw new BenchmarkFailure(`${c.label}: not the expected answer (server or in-process): ${wrong}`)
        answers[c.barePath] = answer.text
      }
      bare = await startBareServer(answers)
    } catch (error) {
      await close()
      throw error
    }
    const target = server
    const limit = bare

    const run = async (): Promise<ReadonlyArray<Figure>> => {
      const figures: Array<Figure> = []
      for (const c of cases) {
        const load = bodyFileLoad(setup, { connections: CONNECTIONS, headers, bodyFile: c.bodyFile })
        await warmUp({ ...load, url: `${target.url}${c.kind.path}` })
        const before = await scrapeServer(target)
        const measured = await withServerLog(target, () => autocannon({ ...load, url: `${target.url}${c.kind.path}` }))
        const fromMetrics = capacityFromMetrics(c.label, before, await scrapeServer(target), measured)
        await warmUp({ ...load, url: `${limit.url}${c.barePath}` })
        const reference = await autocannon({ ...load, url: `${limit.url}${c.barePath}` })
        // Warmed up first: the figure is the engine's steady cost, not its first compilation.
        for (let i = 0; i < (setup.scale === "smoke" ? 5 : 500); i++) c.kind.inProcess(c.bodyText)
        const engineSeconds = await meanSeconds(setup.scale === "smoke" ? 20 : 1000, () => c.kind.inProcess(c.bodyText))
        setup.progress(`${c.label}: ${measured.requestsPerSecond.toFixed(0)} req/s (bare ${reference.requestsPerSecond.toFixed(0)}), p99 ${measured.p99} ms, engine ${(engineSeconds * 1e6).toFixed(0)} µs`)
        const bareName = "bare node:http, same answer, same run"
        figures.push(
          ...loadFigures(c.label, measured, reference, bareName),
          figure(`${c.label}: engine time per request in-process (decode, evaluate, encode)`, "µs", engineSeconds * 1e6, {
            better: "lower",
            ...(c.items === 5 ? { goal: { on: "median" as const, atMost: 1000, source: "issue 4: well under a millisecond" } } : {})
          }),
          ...fromMetrics
        )
      }
      return figures
    }
    return { run, close }
  }
}
