import { makeLoadValidator } from "@retail/domain"
import { Result } from "effect"
import { writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeProduct, rng } from "../../parsers/generate.ts"
import { type Benchmark, BenchmarkFailure, figure, type Figure } from "../Benchmark.ts"
import { redisUrl } from "../StoreUrls.ts"
import { autocannon } from "../support/Autocannon.ts"
import { acceptedLoad, post } from "../support/Http.ts"
import { withRedis } from "../support/Redis.ts"
import { startServer, withServerLog } from "../support/ServerProcess.ts"
import { mintToken, runTag } from "../support/Tokens.ts"

const CLIENTS = [1, 4, 16] as const
/**
 * Far above the default 5000: the publish timeout runs on the event loop that validates the other
 * requests, so on a busy machine it can fire before Redis' reply is even read (500, load FAILED).
 * The figures are about throughput, not that timeout.
 */
const PUBLISH_TIMEOUT_MS = 120_000
/** PRODUCT_BATCH_SIZE's default: the batches the endpoint publishes. */
const BATCH_SIZE = 250

/** A seeded {"products":[...]} body of `n` products, all valid. */
export const productsBody = (n: number, seed = 7): string => {
  const random = rng(seed)
  return JSON.stringify({ products: Array.from({ length: n }, (_, i) => makeProduct(random, i)) })
}

/** Repeats `once` until `budgetMs` has passed (at least once); the mean seconds per call. */
export const meanSeconds = async (budgetMs: number, once: () => unknown): Promise<number> => {
  const start = performance.now()
  let calls = 0
  do {
    await once()
    calls++
  } while (performance.now() - start < budgetMs)
  return (performance.now() - start) / 1000 / calls
}

/** What the endpoint does in-process before answering, minus HTTP and the queue: JSON.parse and validate each product. */
export const parseAndValidate = (body: string, company: string) => {
  const parsed: unknown = JSON.parse(body)
  const products: unknown = typeof parsed === "object" && parsed !== null && "products" in parsed ? parsed.products : undefined
  if (!Array.isArray(products)) throw new BenchmarkFailure("the generated body has no products array")
  const validator = makeLoadValidator(company)
  return products.map((raw, index) =>
    Result.getOrElse(validator.validate(raw, index), (failure) => {
      throw new BenchmarkFailure(`generated product ${index} is invalid: ${failure.error}`)
    })
  )
}

export const loadProducts: Benchmark = {
  name: "load-products",
  description: "POST /v1/load-products with bodies of generated products (seed 7), autocannon at 1, 4 and 16 connections; the server runs with RUN_WORKERS=false (intake only: validate, record, publish).",
  sizeUnit: "products per request",
  defaultSize: 3000,
  smokeSize: 20,
  open: async (setup) => {
    const body = productsBody(setup.size)
    const bodyFile = join(tmpdir(), `retail-bench-load-products-${setup.size}.json`)
    writeFileSync(bodyFile, body)
    const company = `BENCH-${runTag()}`
    const token = await mintToken(company)
    const requestsPerConnection = 2
    const budgetMs = setup.scale === "smoke" ? 0 : 2000
    const redis = redisUrl()
    setup.note(`${(body.length / 1e6).toFixed(2)} MB per body; ${requestsPerConnection} requests per connection at each client count; a fresh server per run (the in-process queue keeps every published batch).`)
    setup.note(`Servers run with REDIS_PUBLISH_TIMEOUT_MS=${PUBLISH_TIMEOUT_MS}: on a loaded 2-core machine, 4 and 16 concurrent 3000-product requests got 500s (QueueError at publish, load FAILED) with the default 5000, and 16 still did with 30000: validating the other requests holds the event loop past the timeout.`)
    if (redis === undefined) setup.note("REDIS_URL is not set: the XADD limit was not measured (the server published to its in-process queue).")
    const validated = parseAndValidate(body, company)

    const run = async (): Promise<ReadonlyArray<Figure>> => {
      const parseSeconds = await meanSeconds(budgetMs, () => parseAndValidate(body, company))
      const xaddSeconds = redis === undefined ? undefined : await withRedis(redis, async (client) => {
        const stream = `bench:${runTag()}:xadd`
        const processCode = crypto.randomUUID()
        const payloads = Array.from({ length: Math.ceil(validated.length / BATCH_SIZE) }, (_, batchNo) =>
          JSON.stringify({ processCode, company, batchNo, products: validated.slice(batchNo * BATCH_SIZE, (batchNo + 1) * BATCH_SIZE) }))
        try {
          return await meanSeconds(budgetMs, async () => {
            const multi = client.multi()
            for (const payload of payloads) multi.xAdd(stream, "*", { payload })
            await multi.exec()
          })
        } finally {
          await client.del(stream)
        }
      })

      const server = await startServer({ RUN_WORKERS: "false", REDIS_PUBLISH_TIMEOUT_MS: String(PUBLISH_TIMEOUT_MS) }, setup.progress)
      try {
        const url = `${server.url}/v1/load-products`
        const headers = { "content-type": "application/json", authorization: `Bearer ${token}` }
        acceptedLoad(await post(url, body, { authorization: `Bearer ${token}` }), "POST /v1/load-products")
        const parseLimit = { name: "in-process JSON.parse + validation, one core", sample: 1 / parseSeconds }
        const figures: Array<Figure> = []
        for (const clients of CLIENTS) {
          // A count of requests rather than seconds: a 3000-product request can take seconds on a busy machine.
          const result = await withServerLog(server, () =>
            autocannon({ url, connections: clients, seconds: 0, amount: clients * requestsPerConnection, method: "POST", headers, bodyFile }))
          await server.dropPublished()
          setup.progress(`${clients} client(s): ${result.requestsPerSecond.toFixed(1)} req/s, p99 ${result.p99} ms`)
          figures.push(
            figure(`requests/s, ${clients} client(s)`, "req/s", result.requestsPerSecond, { limit: parseLimit }),
            figure(`products/s, ${clients} client(s)`, "products/s", result.requestsPerSecond * setup.size, {
              limit: { name: "in-process JSON.parse + validation, one core", sample: setup.size / parseSeconds }
            }),
            figure(`p50 latency, ${clients} client(s)`, "ms", result.p50, { better: "lower" }),
            figure(`p99 latency, ${clients} client(s)`, "ms", result.p99, { better: "lower" })
          )
          if (clients === CLIENTS[CLIENTS.length - 1] && xaddSeconds !== undefined) {
            figures.push(figure(`products/s, ${clients} client(s), against XADD`, "products/s", result.requestsPerSecond * setup.size, {
              limit: { name: `XADD of the same ${Math.ceil(setup.size / BATCH_SIZE)} batches to Redis in one MULTI`, sample: setup.size / xaddSeconds }
            }))
          }
        }
        return figures
      } finally {
        await server.stop()
      }
    }
    return { run, close: async () => undefined }
  }
}
