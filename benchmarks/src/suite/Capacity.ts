import { buildSnapshot, decodeDeliveryRequestA, decodeNetwork, defaultEngineOptions, demoNetwork, evaluateVariantA, ledgerFromUses } from "@retail/capacity"
import { Either } from "effect"
import { writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Benchmark, BenchmarkFailure, figure, type Figure } from "../Benchmark.ts"
import { autocannon } from "../support/Autocannon.ts"
import { type BareServer, startBareServer } from "../support/BareServer.ts"
import { post } from "../support/Http.ts"
import { type ServerHandle, startServer, withServerLog } from "../support/ServerProcess.ts"
import { BENCH_CAPACITY_KEY } from "../support/Tokens.ts"
import { meanSeconds } from "./LoadProducts.ts"

const ITEM_COUNTS = [1, 5, 20] as const
const CONNECTIONS = 64

/**
 * One kind of request to POST /v1/delivery/capacity. Add a variant by appending to `capacityRequests`:
 * its bodies of 1, 5 and 20 items and the in-process path it takes (JSON text in, JSON text out).
 */
export interface CapacityRequestKind {
  readonly variant: string
  readonly path: string
  readonly body: (items: number) => unknown
  /** The engine's own work for one request body, as the endpoint does it, without HTTP. */
  readonly inProcess: (body: string) => string
}

const demoSnapshot = () =>
  Either.match(decodeNetwork(demoNetwork), {
    onLeft: (error) => {
      throw new BenchmarkFailure(`the demo network does not decode: ${error.message}`)
    },
    onRight: (document) => buildSnapshot(document, ledgerFromUses([]))
  })

/** Home deliveries from CD Lurín to three Lima Moderna districts, one SKU per item (three dispatches from 3 items on). */
const variantAItem = (i: number) => ({
  origin: "CD-LURIN",
  entityType: "CD",
  skuCode: `SKU-BENCH-${i}`,
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
    variant: "A",
    path: "/v1/delivery/capacity",
    body: (items) => ({ purchaseDate: "2027-03-01", items: Array.from({ length: items }, (_, i) => variantAItem(i)) }),
    inProcess: (body) => {
      const decoded = decodeDeliveryRequestA(JSON.parse(body))
      if (Either.isLeft(decoded)) throw new BenchmarkFailure(`variant A body refused: ${decoded.left.message}`)
      const results = evaluateVariantA(snapshot, decoded.right, Date.now(), defaultEngineOptions)
      if (Either.isLeft(results)) throw new BenchmarkFailure(`variant A body not routed: ${results.left.message}`)
      return JSON.stringify(results.right)
    }
  }
}

/** The request kinds measured; variant B joins here once its endpoint is merged. */
export const capacityRequests = (): ReadonlyArray<CapacityRequestKind> => [variantA()]

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
  description: `POST /v1/delivery/capacity on the demo network at ${CONNECTIONS} connections (autocannon), beside a bare node:http server (own process) answering the same JSON bytes to the same request in the same run.`,
  sizeUnit: "seconds of load per case",
  defaultSize: 5,
  smokeSize: 1,
  open: async (setup) => {
    const cases: Array<Case> = capacityRequests().flatMap((kind) =>
      ITEM_COUNTS.map((items) => {
        const bodyText = JSON.stringify(kind.body(items))
        const bodyFile = join(tmpdir(), `retail-bench-capacity-${kind.variant}-${items}.json`)
        writeFileSync(bodyFile, bodyText)
        return { label: `variant ${kind.variant}, ${items} item(s)`, items, kind, bodyText, bodyFile, barePath: `/${kind.variant}-${items}` }
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
      server = await startServer({ RUN_WORKERS: "false" }, setup.progress)
      const answers: Record<string, string> = {}
      for (const c of cases) {
        const answer = await post(`${server.url}${c.kind.path}`, c.bodyText, headers)
        if (answer.status !== 200) throw new BenchmarkFailure(`${c.label}: answered ${answer.status} ${answer.text.slice(0, 300)}`)
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
        const amount = setup.scale === "smoke" ? { amount: CONNECTIONS * 4 } : {}
        const load = { connections: CONNECTIONS, seconds: setup.size, method: "POST" as const, headers, bodyFile: c.bodyFile, ...amount }
        const measured = await withServerLog(target, () => autocannon({ ...load, url: `${target.url}${c.kind.path}` }))
        const reference = await autocannon({ ...load, url: `${limit.url}${c.barePath}` })
        // Warmed up first: the figure is the engine's steady cost, not its first compilation.
        for (let i = 0; i < (setup.scale === "smoke" ? 5 : 500); i++) c.kind.inProcess(c.bodyText)
        const engineSeconds = await meanSeconds(setup.scale === "smoke" ? 20 : 1000, () => c.kind.inProcess(c.bodyText))
        setup.progress(`${c.label}: ${measured.requestsPerSecond.toFixed(0)} req/s (bare ${reference.requestsPerSecond.toFixed(0)}), p99 ${measured.p99} ms, engine ${(engineSeconds * 1e6).toFixed(0)} µs`)
        const bareName = "bare node:http, same answer, same run"
        figures.push(
          figure(`${c.label}: requests/s`, "req/s", measured.requestsPerSecond, {
            limit: { name: bareName, sample: reference.requestsPerSecond },
            goal: { on: "ratio", atLeast: 0.3, source: "issue 4" }
          }),
          figure(`${c.label}: p50 latency`, "ms", measured.p50, { better: "lower", limit: { name: bareName, sample: reference.p50 } }),
          figure(`${c.label}: p99 latency`, "ms", measured.p99, {
            better: "lower",
            limit: { name: bareName, sample: reference.p99 },
            goal: { on: "median", atMost: 20, source: "issue 4" }
          }),
          figure(`${c.label}: p99.9 latency`, "ms", measured.p999, { better: "lower", limit: { name: bareName, sample: reference.p999 } }),
          figure(`${c.label}: engine time per request in-process (decode, evaluate, encode)`, "µs", engineSeconds * 1e6, {
            better: "lower",
            ...(c.items === 5 ? { goal: { on: "median" as const, atMost: 1000, source: "issue 4: well under a millisecond" } } : {})
          })
        )
      }
      return figures
    }
    return { run, close }
  }
}
