import { makeLoadValidator } from "@retail/domain"
import { Result } from "effect"
import { writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeProduct, rng } from "../../parsers/generate.ts"
import { type Benchmark, BenchmarkFailure, figure, type Figure } from "../Benchmark.ts"
import { redisUrl } from "../StoreUrls.ts"
import { autocannon } from "../support/Autocannon.ts"
import { cpuSharesDuring, waitedChildrenCpuSeconds } from "../support/ProcessCpu.ts"
import { acceptedLoad, post } from "../support/Http.ts"
import { withRedis } from "../support/Redis.ts"
import { startServer, withServerLog } from "../support/ServerProcess.ts"
import { mintToken, runTag } from "../support/Tokens.ts"

const CLIENTS = [1, 4, 16] as const
/** Requests per connection at each client count: enough answers for a median at 1 client, a few seconds at 16. */
const REQUESTS_PER_CONNECTION: Readonly<Record<(typeof CLIENTS)[number], number>> = { 1: 8, 4: 3, 16: 2 }
/** Requests before the measured ones: the validation threads start with the first, and V8 compiles the hot path. */
const WARM_UP_REQUESTS = 4
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

const ISSUE_21 = "issue 21"

export const loadProducts: Benchmark = {
  name: "load-products",
  description: "POST /v1/load-products with bodies of generated products (seed 7), autocannon at 1, 4 and 16 connections; the server runs with RUN_WORKERS=false (intake only: validate, record, publish) and its defaults otherwise (REDIS_PUBLISH_TIMEOUT_MS 5000, JSON_VALIDATION_THREADS 2). " +
    "At 16 clients, also the CPU a product of every party on the machine (the server, every PostgreSQL process, Redis and autocannon, from /proc) and the cores they kept busy, beside the in-process parse + validate CPU a product.",
  sizeUnit: "products per request",
  defaultSize: 3000,
  smokeSize: 20,
  open: async (setup) => {
    const body = productsBody(setup.size)
    const bodyFile = join(tmpdir(), `retail-bench-load-products-${setup.size}.json`)
    writeFileSync(bodyFile, body)
    const company = `BENCH-${runTag()}`
    const token = await mintToken(company)
    const smoke = setup.scale === "smoke"
    const budgetMs = smoke ? 0 : 2000
    const redis = redisUrl()
    setup.note(`${(Buffer.byteLength(body) / 1e6).toFixed(2)} MB per body; requests per connection: ${CLIENTS.map((c) => `${REQUESTS_PER_CONNECTION[c]} at ${c}`).join(", ")}, after ${WARM_UP_REQUESTS} warm-up requests; a fresh server per run. autocannon samples every 10 ms, so a run ends with its last answer (it used to end on a whole second: 2 requests of 140 ms were "1.98 req/s").`)
    setup.note("Server CPU per product: user + system time of the server process (event loop, validation threads, V8's own threads) from /proc/<pid>/stat during the measured requests, over the products they carried; the in-process limit beside it is the benchmark process's JSON.parse + validation time per product, one core.")
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

      const server = await startServer({ RUN_WORKERS: "false" }, setup.progress)
      try {
        const url = `${server.url}/v1/load-products`
        const headers = { "content-type": "application/json", authorization: `Bearer ${token}` }
        for (let i = 0; i < (smoke ? 1 : WARM_UP_REQUESTS); i++) acceptedLoad(await post(url, body, { authorization: `Bearer ${token}` }), "POST /v1/load-products")
        await server.dropPublished()
        const oneCore = { name: "in-process JSON.parse + validation, one core", sample: setup.size / parseSeconds }
        const figures: Array<Figure> = []
        for (const clients of CLIENTS) {
          // A count of requests rather than seconds: a 3000-product request can take seconds on a busy machine.
          const amount = clients * (smoke ? 1 : REQUESTS_PER_CONNECTION[clients])
          const generatorBefore = waitedChildrenCpuSeconds(process.pid)
          const startedAt = performance.now()
          const { result, servers: cpuSeconds, postgres, redis } = await withServerLog(server, () =>
            cpuSharesDuring([server.pid], () => autocannon({ url, connections: clients, seconds: 0, amount, method: "POST", headers, bodyFile })))
          const wallSeconds = (performance.now() - startedAt) / 1000
          const generatorAfter = waitedChildrenCpuSeconds(process.pid)
          // autocannon runs as a child process, waited for: its CPU is this process's children's.
          const generator = generatorBefore === undefined || generatorAfter === undefined ? undefined : generatorAfter - generatorBefore
          await server.dropPublished()
          const productsPerSecond = result.requestsPerSecond * setup.size
          setup.progress(`${clients} client(s): ${result.requestsPerSecond.toFixed(1)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms`)
          figures.push(
            figure(`requests/s, ${clients} client(s)`, "req/s", result.requestsPerSecond, { limit: { name: oneCore.name, sample: 1 / parseSeconds } }),
            figure(`products/s, ${clients} client(s)`, "products/s", productsPerSecond, { limit: oneCore }),
            figure(`p50 latency, ${clients} client(s)`, "ms", result.p50, {
              better: "lower",
              ...(clients === 1
                ? {
                  limit: { name: "in-process JSON.parse + validation of the same body, one core", sample: parseSeconds * 1000 },
                  goal: { on: "ratio", atMost: 2, source: `${ISSUE_21}: 1 client, p50 at most 2x the in-process parse + validate time` }
                }
                : {})
            }),
            figure(`p99 latency, ${clients} client(s)`, "ms", result.p99, { better: "lower" })
          )
          if (cpuSeconds !== undefined) {
            figures.push(figure(`server CPU per product, ${clients} client(s)`, "µs", (cpuSeconds / (result.requests * setup.size)) * 1e6, {
              better: "lower",
              limit: { name: "in-process JSON.parse + validation per product, one core", sample: (parseSeconds / setup.size) * 1e6 }
            }))
          }
          if (clients === CLIENTS[CLIENTS.length - 1]) {
            figures.push(figure(`products/s, ${clients} client(s), against two cores`, "products/s", productsPerSecond, {
              limit: { name: "in-process JSON.parse + validation, two cores (2x one core)", sample: 2 * oneCore.sample },
              goal: { on: "ratio", atLeast: 0.5, source: `${ISSUE_21}: 16 clients, at least half the in-process limit on two cores` }
            }))
            // Where the machine's cores went, as for end-to-end: the limit is two cores doing nothing but parse and validate.
            const everyParty = cpuSeconds === undefined || postgres === undefined || generator === undefined ? undefined : cpuSeconds + postgres + (redis ?? 0) + generator
            if (everyParty !== undefined && everyParty > 0) {
              const products = result.requests * setup.size
              figures.push(
                figure(`cores busy, ${clients} client(s) (the server, PostgreSQL, Redis and the load generator)`, "cores", everyParty / wallSeconds),
                figure(`CPU per product, every party (the server, PostgreSQL, Redis, the load generator), ${clients} client(s)`, "µs", (everyParty / products) * 1e6, {
                  better: "lower",
                  limit: { name: "in-process JSON.parse + validation per product, one core", sample: (parseSeconds / setup.size) * 1e6 }
                })
              )
            }
            if (xaddSeconds !== undefined) {
              figures.push(figure(`products/s, ${clients} client(s), against XADD`, "products/s", productsPerSecond, {
                limit: { name: `XADD of the same ${Math.ceil(setup.size / BATCH_SIZE)} batches to Redis in one MULTI`, sample: setup.size / xaddSeconds }
              }))
            }
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
