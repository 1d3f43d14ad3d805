import { Result } from "effect"
import pg from "pg"
import { describe, expect, it } from "vitest"
import type { Benchmark } from "../src/Benchmark.ts"
import { BenchmarkFailure, figure } from "../src/Benchmark.ts"
import { toMarkdown } from "../src/Markdown.ts"
import { decodeReport, type Report } from "../src/Report.ts"
import { failures, runSuite } from "../src/Runner.ts"
import { WORK_MICROS } from "../src/suite/CapacityBudget.ts"
import { allBenchmarks, benchmarks } from "../src/suite/index.ts"
import { withOwnDatabase } from "./support/OwnDatabase.ts"

/** The product rows in DATABASE_URL's database (0 without one): what a benchmark left behind. */
const productRowsLeft = async (): Promise<number> => {
  const url = process.env["DATABASE_URL"]
  if (url === undefined || url === "") return 0
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const counts = await Promise.all(["products", "product_barcodes", "product_hierarchies", "product_attributes"].map((table) =>
    client.query<{ readonly n: string }>(`SELECT count(*)::text AS n FROM ${table}`))).finally(() => client.end())
  return counts.reduce((sum, { rows }) => sum + Number(rows[0]?.n), 0)
}

const smoke = (selected: ReadonlyArray<Benchmark>): Promise<Report> =>
  runSuite(selected, { scale: "smoke", runs: 1, label: "smoke", command: "vitest", log: () => undefined })

const byName = (name: string): Benchmark => {
  const found = allBenchmarks.find((b) => b.name === name)
  if (found === undefined) throw new Error(`no benchmark ${name}`)
  return found
}

/** Well-formed, not fast: every figure a finite number, throughputs and their limits above zero, the report valid against its schema. */
const expectWellFormed = (report: Report, expectedFigures: ReadonlyArray<string>) => {
  expect(failures(report)).toEqual([])
  expect(Result.isSuccess(decodeReport(report))).toBe(true)
  const [only] = report.benchmarks
  expect(only?.runs).toBe(1)
  const figures = only?.figures ?? []
  expect(figures.map((f) => f.name)).toEqual(expect.arrayContaining([...expectedFigures]))
  for (const f of figures) {
    expect(f.samples).toHaveLength(1)
    for (const value of [f.median, ...f.samples, ...(f.limit?.samples ?? [])]) expect(Number.isFinite(value)).toBe(true)
    if (f.better === "higher") {
      expect(f.median, f.name).toBeGreaterThan(0)
      if (f.limit !== undefined) expect(f.limit.median, `${f.name}: limit`).toBeGreaterThan(0)
    }
    if (f.limit !== undefined && f.limit.median > 0) expect(f.ratio, f.name).toBeCloseTo(f.median / f.limit.median, 2)
  }
  expect(toMarkdown(report)).toContain(`## ${only?.name ?? ""}`)
  // Every benchmark names what its servers ran with.
  expect(only?.configuration).toMatch(/\S/)
  expect(toMarkdown(report)).toContain("Configuration: ")
  return figures
}

const SMOKE_TIMEOUT = 240_000

describe("benchmark suite, smoke size, one run each", () => {
  it("load-products: requests/s and products/s at 1, 4 and 16 clients beside in-process parse + validation", async () => {
    const figures = expectWellFormed(await smoke([byName("load-products")]), [
      "requests/s, 1 client(s)",
      "requests/s, 16 client(s)",
      "products/s, 4 client(s)",
      "p99 latency, 16 client(s)"
    ])
    expect(figures.find((f) => f.name === "requests/s, 16 client(s)")?.limit?.name).toContain("JSON.parse")
  }, SMOKE_TIMEOUT)

  it("handle-json: MB/s to the last batch published beside the fastest in-process parse, and the server's peak RSS", async () => {
    const figures = expectWellFormed(await smoke([byName("handle-json")]), [
      "MB/s, first byte to last batch published",
      "server peak RSS during the upload",
      "in-process: stream-json streamArray"
    ])
    expect(figures.find((f) => f.name === "server peak RSS during the upload")?.median).toBeGreaterThan(10)
    expect(figures.find((f) => f.name === "MB/s, first byte to last batch published")?.limit).toBeDefined()
  }, SMOKE_TIMEOUT)

  it("handle-csv: MB/s over HTTP beside csv-parse alone, the endpoint's pipeline and the project's reader on the same files", async () => {
    const figures = expectWellFormed(await smoke([byName("handle-csv")]), [
      "MB/s over HTTP, first byte to last batch published",
      "products/s over HTTP",
      "server peak RSS during the upload",
      "in-process: the endpoint's pipeline without HTTP (split, join, validate, spool)",
      "in-process: csv-parse alone (arrays)",
      "in-process: uDSV alone (stringArrs)",
      "in-process: project CsvRecordReader (typed records, header check)"
    ])
    expect(figures.find((f) => f.name === "MB/s over HTTP, first byte to last batch published")?.limit?.name).toContain("csv-parse")
    expect(figures.find((f) => f.name === "server peak RSS during the upload")?.median).toBeGreaterThan(10)
  }, SMOKE_TIMEOUT)

  it("end-to-end: products/s to COMPLETED beside the COPY limit (persistBatch without DATABASE_URL), and the write statements; with a database, the load's phases, and no product rows left behind", async () => {
    const { report, rowsLeft } = await withOwnDatabase("end_to_end", async () => {
      const report = await smoke([byName("end-to-end")])
      return { report, rowsLeft: await productRowsLeft() }
    })
    // Each measurement's rows are deleted once it is measured, so the next one writes into tables as they were.
    expect(rowsLeft).toBe(0)
    const phases = process.env["DATABASE_URL"]
      ? [
        "seconds receiving (first byte to the load recorded: file read, validated, spooled), WORKERS=2",
        "seconds publishing (load recorded to the upload's answer), WORKERS=2",
        "seconds after the answer (to COMPLETED), WORKERS=2",
        "products/s from the load recorded to COMPLETED (publishing and persisting), WORKERS=2",
        // Where the machine's cores went: the pipeline's and the limit's CPU per product, side by side.
        "cores busy, first byte to COMPLETED (the servers, PostgreSQL and Redis), WORKERS=2",
        "CPU per product, COPY-based limit 2 at a time, PostgreSQL",
        "CPU per product, every party (the servers, PostgreSQL, Redis), best layout of the run"
      ]
      : []
    const figures = expectWellFormed(report, [
      "products/s first byte to COMPLETED, best layout of the run",
      "products/s first byte to COMPLETED, WORKERS=2",
      "write statement alone, 2 at a time",
      ...phases
    ])
    expect(figures.find((f) => f.name === "products/s first byte to COMPLETED, WORKERS=2")?.limit?.name).toMatch(process.env["DATABASE_URL"] ? /COPY-based limit/ : /persistBatch/)
    expect(figures.find((f) => f.name === "write statement alone, 2 at a time")?.limit?.name).toContain("before issue 21")
    if (process.env["DATABASE_URL"]) {
      expect(figures.find((f) => f.name === "CPU per product, every party (the servers, PostgreSQL, Redis), best layout of the run")?.limit?.name).toContain("COPY-based limit")
    }
  }, SMOKE_TIMEOUT)

  it("capacity: variants A and B at 1, 5 and 20 items beside a bare node:http server, and the engine's own time", async () => {
    const figures = expectWellFormed(await smoke([byName("capacity")]), [
      "variant A, 1 item(s): requests/s",
      "variant A, 5 item(s): p99 latency",
      "variant A, 20 item(s): p99.9 latency",
      "variant A, 5 item(s): engine time per request in-process (decode, evaluate, encode)",
      "variant B home delivery, fixed origins, 1 item(s): requests/s",
      "variant B home delivery, fixed origins, 20 item(s): engine time per request in-process (decode, evaluate, encode)",
      "variant B all modes, origins searched, 5 item(s): requests/s",
      "variant B all modes, origins searched, 20 item(s): engine time per request in-process (decode, evaluate, encode)"
    ])
    expect(figures.find((f) => f.name === "variant A, 20 item(s): requests/s")?.limit?.name).toContain("bare node:http")
  }, SMOKE_TIMEOUT)

  it("capacity-checkout: varied carts with orders placed meanwhile, beside a bare node:http server answering each cart", async () => {
    const figures = expectWellFormed(await smoke([byName("capacity-checkout")]), [
      "variant A, 1 item(s), varied carts: requests/s",
      "variant A, 5 item(s), varied carts: p99 latency",
      "variant B home delivery, fixed origins, 5 item(s), varied carts: requests/s",
      "variant B all modes, origins searched, 5 item(s), varied carts: p99 latency",
      "variant A, 5 item(s), varied carts, orders at 100/s: p99 latency"
    ])
    const applied = figures.filter((f) => f.name.endsWith("orders applied meanwhile"))
    expect(applied).toHaveLength(5)
    for (const f of applied) expect(f.median, f.name).toBeGreaterThan(0)
    expect(figures.find((f) => f.name === "variant A, 5 item(s), varied carts: requests/s")?.limit?.name).toContain("bare node:http")
    // Issue 22's case at ten times the orders (smoke: 100/s against 10/s), reported without goals.
    const high = "variant A, 5 item(s), varied carts, orders at 100/s"
    const appliedAt = (label: string) => figures.find((f) => f.name === `${label}: orders applied meanwhile`)?.median ?? 0
    expect(appliedAt(high)).toBeGreaterThan(appliedAt("variant A, 5 item(s), varied carts"))
    expect(figures.find((f) => f.name === `${high}: p99 latency`)?.goal).toBeUndefined()
    expect(figures.find((f) => f.name === "variant A, 5 item(s), varied carts: p99 latency")?.goal).toBeDefined()
    // In process, beside the engine's time on a fixed ledger, its time with orders taken at the load's rate.
    const withOrders = figures.filter((f) => f.name.endsWith("engine time per request in-process, an order taken every (requests/s ÷ orders/s of the load) requests"))
    expect(withOrders).toHaveLength(4)
    for (const f of withOrders) expect(f.median, f.name).toBeGreaterThan(0)
  }, SMOKE_TIMEOUT)

  it("capacity-orders: orders applied/s, p50/p99 and server CPU per order at 16 and 64 clients, then the database checked", async () => {
    const figures = expectWellFormed(await smoke([byName("capacity-orders")]), [
      "16 clients: orders applied/s",
      "16 clients: p99 latency",
      "64 clients: orders applied/s",
      "64 clients: p50 latency",
      "64 clients: server CPU per applied order (all threads)",
      "after the run: usage rows above their total (oversold)",
      "after the run: orders answered 200 without exactly their ledger rows"
    ])
    const value = (name: string) => figures.find((f) => f.name === name)?.median
    // The end check ran over what was applied: rows read, none oversold, every 200 with its rows.
    expect(value("16 clients: orders applied")).toBeGreaterThan(0)
    expect(value("after the run: capacity usage rows checked")).toBeGreaterThan(0)
    expect(value("after the run: usage rows above their total (oversold)")).toBe(0)
    expect(value("after the run: orders answered 200 without exactly their ledger rows")).toBe(0)
    // 64 orders in flight at once cannot all go alone: those arriving during a statement share the next.
    expect(value("64 clients: orders per database statement (mean; capacity_order_group_size over the case)")).toBeGreaterThan(1)
  }, SMOKE_TIMEOUT)
})

describe("stock-deltas, smoke size", () => {
  it("rows/s applied end to end; with DATABASE_URL and REDIS_URL, start-up, RSS and visibility on a second server", async () => {
    const shared = Boolean(process.env["DATABASE_URL"]) && Boolean(process.env["REDIS_URL"])
    // Its stock rows go into a database of its own (dropped after), not the one the other test files share.
    const figures = expectWellFormed(await withOwnDatabase("stock_deltas", () => smoke([byName("stock-deltas")])), [
      shared
        ? "rows/s applied end to end (PostgreSQL and 2 replica(s)), batches of 500, 2 senders"
        : "rows/s applied end to end (PostgreSQL and 1 replica(s)), batches of 500, 2 senders",
      "CPU per row applied end to end: the server fed (all threads)",
      ...(shared
        ? [
          "delay until a delta is answered by the other replica, p99 (1,000 rows/s arriving)",
          "CPU per row applied end to end: the other server (all threads)",
          "CPU per row applied end to end: PostgreSQL (the backends of DATABASE_URL's database)"
        ]
        : [])
    ])
    // Bytes per row are reported at full size only (a few thousand rows are within the heap's noise).
    expect(figures.find((f) => f.name.startsWith("bytes per stock row"))).toBeUndefined()
    if (shared) expect(figures.find((f) => f.name.startsWith("replica start-up to listening"))?.median).toBeGreaterThan(0)
  }, SMOKE_TIMEOUT)
})

describe("capacity-national, smoke size", () => {
  it("the national network beside the demo network: engine time per request, bytes per stock row, both servers under load, RSS, the national one again while stock deltas arrive", async () => {
    // The national network and its stock go into a database of its own (dropped after): test files sharing
    // DATABASE_URL run meanwhile, and their servers would load (and reconcile) both.
    const figures = expectWellFormed(await withOwnDatabase("capacity_national", () => smoke([byName("capacity-national")])), [
      "national network: stock rows",
      "national network: bytes per stock row held beyond the rows (snapshot stock and origin index, heap and external memory after GC)",
      "variant A, 5 items: engine CPU time per request in-process (decode, evaluate, encode), national network",
      "variant B all modes, origins searched, 5 items: engine CPU time per request in-process (decode, evaluate, encode), national network",
      "variant B all modes, origins searched, 5 items of the national catalogue: engine CPU time per request in-process (decode, evaluate, encode), national network",
      "demo network, variant A, 5 items: requests/s",
      "national network, variant B all modes, origins searched, 5 items: p99 latency",
      "national network: server RSS after the loads",
      "national network, variant B all modes, origins searched, 5 items: server CPU per request (all threads, /proc)",
      // Issue 25's HTTP goals while stock deltas arrive at 1,000 rows/s.
      "national network, variant A, 5 items, stock deltas arriving: requests/s",
      "national network, variant B all modes, origins searched, 5 items, stock deltas arriving: p99 latency",
      "national network, variant B all modes, origins searched, 5 items, stock deltas arriving: max latency",
      "national network, variant B all modes, origins searched, 5 items, stock deltas arriving: server CPU per request (all threads, /proc)",
      // A server restarted on the database that holds the national network: only with one.
      ...(process.env["DATABASE_URL"] ? ["server start-up on the national network: spawn to its first answer"] : [])
    ])
    expect(figures.some((f) => f.name.startsWith("national network loaded: "))).toBe(true)
    expect(figures.find((f) => f.name.startsWith("variant A, 5 items: engine"))?.limit?.name).toContain("demo network")
    expect(figures.find((f) => f.name === "national network: stock rows")?.median).toBeGreaterThan(5_000)
    // The feed ran beside each case with deltas and its rows were applied (sequences above the stock's); the plan cache was read from /metrics.
    const withDeltas = (what: string) => figures.filter((f) => f.name.includes(", stock deltas arriving: ") && f.name.includes(what))
    expect(withDeltas("stock rows/s applied meanwhile")).toHaveLength(2)
    for (const f of withDeltas("stock rows/s applied meanwhile")) expect(f.median, f.name).toBeGreaterThan(0)
    const beside = "the same load without deltas just before, same server"
    expect(withDeltas("plans reused").map((f) => f.limit?.name)).toEqual([beside, beside])
    expect(withDeltas("server CPU per request (all threads, /proc), beside no deltas").map((f) => f.limit?.name)).toEqual([beside, beside])
  }, SMOKE_TIMEOUT)
})

describe("capacity-beside-load, smoke size", () => {
  it("capacity p99 and max while a load persists in the same npm start process, beside the idle figures, with the workers on their thread and on the event loop", async () => {
    const figures = expectWellFormed(await smoke([byName("capacity-beside-load")]), [
      "workers on their thread (default), while a load persists: p99 latency",
      "workers on their thread (default), while a load persists: max latency",
      "workers on the event loop (PERSIST_THREAD=false), while a load persists: p99 latency",
      "workers on their thread (default): products/s, first byte to COMPLETED"
    ])
    const p99 = figures.find((f) => f.name === "workers on their thread (default), while a load persists: p99 latency")
    expect(p99?.limit?.name).toBe("workers on their thread (default), idle: p99 latency")
    expect(p99?.goal?.below).toBe(20)
    expect(figures.find((f) => f.name === "workers on their thread (default), while a load persists: max latency")?.goal?.below).toBe(100)
    // Goals on the default only: the event-loop layout is the comparison.
    expect(figures.filter((f) => f.name.startsWith("workers on the event loop")).every((f) => f.goal === undefined)).toBe(true)
  }, SMOKE_TIMEOUT)
})

describe("metrics-overhead, smoke size", () => {
  it("capacity req/s, /handle-json MB/s and /load-products req/s: metrics on beside off, tracing at 1% beside off, the sink's spans counted", async () => {
    const figures = expectWellFormed(await smoke([byName("metrics-overhead")]), [
      "capacity variant A, 5 items: requests/s, METRICS_ENABLED=true",
      "/v1/handle-json MB/s, first byte to the answer, METRICS_ENABLED=true",
      "/v1/load-products requests/s, METRICS_ENABLED=true",
      "capacity variant A, 5 items: requests/s, tracing on at 0.01",
      "/v1/handle-json MB/s, first byte to the answer, tracing on at 0.01",
      "/v1/load-products requests/s, tracing on at 0.01",
      "spans received by the OTLP sink from the server with tracing on at 0.01"
    ])
    const compared = figures.filter((f) => f.limit !== undefined)
    expect(compared).toHaveLength(8)
    for (const f of compared) {
      expect(f.limit?.name).toContain(f.name.includes("METRICS_ENABLED=true") ? "METRICS_ENABLED=false" : "tracing off")
      // Throughput at least 0.95 of the limit's; the server's CPU per capacity request at most 1.05 of it.
      expect(f.better === "higher" ? f.goal?.atLeast : f.goal?.atMost).toBe(f.better === "higher" ? 0.95 : 1.05)
    }
    expect(compared.filter((f) => f.name.includes("server CPU per request"))).toHaveLength(2)
    // At least the request sent with a sampled traceparent (the benchmark fails without its span).
    expect(figures.find((f) => f.name.startsWith("spans received"))?.median).toBeGreaterThanOrEqual(1)
  }, SMOKE_TIMEOUT)
})

describe("capacity-instructions, smoke size", () => {
  it("is run only when named, and counts the instructions of the first case's answers under callgrind", async () => {
    expect(benchmarks.map((b) => b.name)).not.toContain("capacity-instructions")
    const figures = expectWellFormed(await smoke([byName("capacity-instructions")]), ["variant A, 5 items: instructions per request in-process (callgrind)"])
    // An answer is hundreds of thousands of instructions (docs/capacity.md): a count near zero would be
    // callgrind counting nothing of the loop, one of hundreds of millions the whole run divided.
    expect(figures[0]?.median).toBeGreaterThan(10_000)
    expect(figures[0]?.median).toBeLessThan(20_000_000)
  }, SMOKE_TIMEOUT)
})

describe("capacity-budget, smoke size", () => {
  it("is run only when named, and measures the server beside bare servers doing more CPU work per request", async () => {
    expect(benchmarks.map((b) => b.name)).not.toContain("capacity-budget")
    const label = "variant A, 5 items"
    const figures = expectWellFormed(await smoke([byName("capacity-budget")]), [
      `${label}: requests/s, npm start server`,
      `${label}: requests/s, bare node:http + 0 µs CPU per request`,
      `${label}: requests/s, bare node:http + ${WORK_MICROS.at(-1) ?? 0} µs CPU per request`,
      "variant B all modes, origins searched, 5 items: requests/s, npm start server"
    ])
    const cpu = (work: number) => figures.find((f) => f.name === `${label}: server CPU per request (/proc), bare node:http + ${work} µs CPU per request`)?.median ?? 0
    // The spin is CPU time: the most loaded bare server used at least half of the extra work per
    // request more than the one spinning a quarter of it (/proc counts in 10 ms ticks, ~10 µs a
    // request at this size; the points without work come first, on a bare server still compiling).
    const most = WORK_MICROS.at(-1) ?? 0
    expect(WORK_MICROS).toContain(most / 4)
    expect(cpu(most) - cpu(most / 4)).toBeGreaterThan((most * 3) / 8)
  }, SMOKE_TIMEOUT)
})

describe("embedded (npm start's defaults), smoke size", () => {
  it("is run only when named: about a minute a run would take the suite over its 10 minutes", () => {
    expect(benchmarks.map((b) => b.name)).not.toContain("embedded")
    expect(allBenchmarks.map((b) => b.name)).toContain("embedded")
  })

  it("intake MB/s, products/s to COMPLETED and capacity idle and under load, on the embedded PostgreSQL server, the configuration named", async () => {
    const report = await smoke([byName("embedded")])
    const figures = expectWellFormed(report, [
      "handle-json intake MB/s, first byte to the 200",
      "handle-json products/s, first byte to COMPLETED",
      "capacity variant A 5 items, 64 connections, idle: requests/s",
      "capacity variant A 5 items, 64 connections, idle: max latency",
      "capacity variant A 5 items, 64 connections, while a load persists: p50 latency",
      "capacity variant A 5 items, 64 connections, while a load persists: p99 latency",
      "capacity variant A 5 items, 64 connections, while a load persists: max latency",
      "share of that capacity window after the load had finished (0: it persisted throughout)"
    ])
    const [only] = report.benchmarks
    expect(only?.configuration).toContain("npm start with nothing set")
    expect(only?.notes.join(" ")).toContain("database: embedded PostgreSQL server in")
    expect(toMarkdown(report)).toContain("Configuration: npm start with nothing set")
    const p99 = figures.find((f) => f.name === "capacity variant A 5 items, 64 connections, while a load persists: p99 latency")
    expect(p99?.goal?.below).toBe(20)
    const share = figures.find((f) => f.name.startsWith("share of that capacity window"))?.median ?? -1
    expect(share).toBeGreaterThanOrEqual(0)
    expect(share).toBeLessThanOrEqual(100)
  }, SMOKE_TIMEOUT)
})

describe("soak, smoke size", () => {
  it("is run only when named: its minutes would double the whole suite", () => {
    expect(benchmarks.map((b) => b.name)).not.toContain("soak")
    expect(allBenchmarks.map((b) => b.name)).toContain("soak")
  })

  it("every kind of traffic answered, RSS sampled, and the end check ran in the database: loads, products, a sample, the capacity ledger; no product rows left behind", async () => {
    const { report, rowsLeft } = await withOwnDatabase("soak", async () => {
      const report = await smoke([byName("soak")])
      return { report, rowsLeft: await productRowsLeft() }
    })
    // Checked, then deleted: later benchmarks on the same database write into tables as they were.
    expect(rowsLeft).toBe(0)
    const figures = expectWellFormed(report, [
      "/v1/load-products: products/s accepted",
      "/v1/handle-json: p99 latency",
      "/v1/handle-json-int (internal listener): requests/s (2xx)",
      "/v1/handle-csv: non-2xx answers",
      "POST /v1/delivery/capacity variant A, 5 items: p99 latency",
      "POST /v1/delivery/capacity variant B all modes, origins searched, 5 items: requests/s (2xx)",
      "POST /v1/delivery/capacity/consumptions: requests",
      "server RSS at the end of traffic",
      "server RSS slope after warm-up, linear fit (0 when falling)"
    ])
    const value = (name: string) => figures.find((f) => f.name === name)?.median
    // The end check really ran: each load's rows were counted and a sample read back (two per load).
    const loads = value("loads checked in the database") ?? 0
    expect(loads).toBeGreaterThanOrEqual(4)
    expect(value("products counted in the database (per load)")).toBeGreaterThan(loads)
    expect(value("products compared field by field with what was sent (sample)")).toBeGreaterThanOrEqual(loads)
    expect(value("capacity usage rows checked (used <= total, used = ledger)")).toBeGreaterThan(0)
    expect(value("server peak RSS during traffic")).toBeGreaterThan(10)
  }, SMOKE_TIMEOUT)
})

describe("benchmark runner", () => {
  const fake = (run: () => Promise<ReturnType<typeof figure>[]>): Benchmark => ({
    name: "fake",
    description: "a benchmark measuring nothing",
    sizeUnit: "things",
    defaultSize: 10,
    smokeSize: 1,
    open: async () => ({ run, close: async () => undefined })
  })

  it("collects samples of each figure over runs: median, spread and the ratio to the limit measured beside it", async () => {
    let call = 0
    const values = [10, 30, 20, 40]
    const report = await runSuite([fake(async () => {
      const value = values[call++] ?? 0
      return [figure("throughput", "ops/s", value, { limit: { name: "ceiling", sample: 100 }, goal: { on: "ratio", atLeast: 0.3, source: "test" } })]
    })], { scale: "full", runs: 4, label: "", command: "test", log: () => undefined })
    const [f] = report.benchmarks[0]?.figures ?? []
    expect(f?.samples).toEqual([10, 30, 20, 40])
    expect(f?.median).toBe(25)
    expect([f?.min, f?.max, f?.q1, f?.q3]).toEqual([10, 40, 17.5, 32.5])
    expect(f?.ratio).toBe(0.25)
    expect(f?.goal?.met).toBe(false)
    expect(Result.isSuccess(decodeReport(report))).toBe(true)
  })

  it("a benchmark that throws, or measures a non-finite number, is a failure the command reports", async () => {
    const thrown = await runSuite([fake(async () => {
      throw new Error("server exited")
    })], { scale: "smoke", runs: 2, label: "", command: "test", log: () => undefined })
    expect(failures(thrown)).toEqual(["fake: server exited"])
    const infinite = await runSuite([fake(async () => [figure("rate", "ops/s", Number.POSITIVE_INFINITY)])], {
      scale: "smoke",
      runs: 1,
      label: "",
      command: "test",
      log: () => undefined
    })
    expect(failures(infinite)[0]).toContain("not a finite non-negative number")
    expect(toMarkdown(infinite)).toContain("**FAILED**")
  })

  it("a run that fails after measuring keeps its figures in the report; a benchmark's own default runs apply unless the command sets them", async () => {
    let calls = 0
    const failing: Benchmark = {
      ...fake(async () => {
        calls++
        throw new BenchmarkFailure("2 products lost", [figure("rate", "ops/s", 5)])
      }),
      defaultRuns: 1
    }
    const report = await runSuite([failing], { scale: "full", label: "", command: "test", log: () => undefined })
    expect(calls).toBe(1)
    expect(failures(report)).toEqual(["fake: 2 products lost"])
    expect(report.benchmarks[0]?.figures.map((f) => [f.name, f.median])).toEqual([["rate", 5]])
    expect(Result.isSuccess(decodeReport(report))).toBe(true)
  })

  it("the report schema refuses a figure without samples", async () => {
    const report = await runSuite([fake(async () => [figure("rate", "ops/s", 5)])], { scale: "smoke", runs: 1, label: "", command: "test", log: () => undefined })
    const broken = { ...report, benchmarks: report.benchmarks.map((b) => ({ ...b, figures: b.figures.map((f) => ({ ...f, samples: [] })) })) }
    expect(Result.isFailure(decodeReport(broken))).toBe(true)
  })
})
