import { demoNetwork, StockBoard } from "@retail/capacity"
import { readFileSync } from "node:fs"
import v8 from "node:v8"
import vm from "node:vm"
import pg from "pg"
import { type Benchmark, BenchmarkFailure, figure, type Figure } from "../Benchmark.ts"
import { get } from "../support/Http.ts"
import { commandCpuSeconds, databaseBackendsCpuSeconds, processCpuSeconds } from "../support/ProcessCpu.ts"
import { deleteKeys } from "../support/Redis.ts"
import { type ServerHandle, startServer, withServerLog } from "../support/ServerProcess.ts"
import { postStockChanges, type StockChange, startStockFeeder } from "../support/StockFeeder.ts"
import { BENCH_CAPACITY_KEY, runTag } from "../support/Tokens.ts"
import { databaseUrl, redisUrl } from "../StoreUrls.ts"

/** The demo network's nodes that hold stock (every type but the hub), CDs first. */
const HOLDERS: ReadonlyArray<string> = demoNetwork.nodes.filter((node) => node.type !== "HUB").map((node) => node.code)
/** Rows per SKU on average: both CDs, and each other node with one chance in two. */
const ROWS_PER_SKU = 2 + (HOLDERS.length - 2) / 2
const BATCH_ROWS = 5_000
const SENDERS = 2

/**
 * The seeded stock: SKU s (1..skus) is held by node k (1-based in HOLDERS) when k <= 2 or
 * (s * 2654435761 + k * 40503) mod 100 < 50, with (s * 7 + k * 13) mod 200 units. The same
 * formula in SQL (seeding PostgreSQL) and here (the in-process measurement).
 */
const holds = (s: number, k: number) => k <= 2 || (s * 2654435761 + k * 40503) % 100 < 50
const unitsAt = (s: number, k: number) => (s * 7 + k * 13) % 200
const skuCode = (tag: string, s: number) => `BENCH-${tag}-${String(s).padStart(7, "0")}`

const SEED = `
  INSERT INTO capacity_stock (sku, node, units, sequence, revision)
  SELECT 'BENCH-' || $1 || '-' || lpad(s::text, 7, '0'), n.node, ((s * 7 + n.k * 13) % 200)::integer, 0, 1
  FROM generate_series(1, $2::integer) AS s, unnest($3::text[]) WITH ORDINALITY AS n(node, k)
  WHERE n.k <= 2 OR (s::bigint * 2654435761 + n.k * 40503) % 100 < 50`

const collectGarbage = (): (() => void) => {
  v8.setFlagsFromString("--expose-gc")
  return vm.runInNewContext("gc") as () => void
}

/** Heap and array buffers of this process after a full collection, and its RSS, in bytes. */
const heldBytes = (gc: () => void) => {
  gc()
  gc()
  const usage = process.memoryUsage()
  return { held: usage.heapUsed + usage.arrayBuffers, rss: usage.rss }
}

/** The seeded rows in a StockBoard in this process, as a replica loads them (chunks of 100,000): bytes per row. */
const inProcessBytesPerRow = (
  tag: string,
  skus: number
): { readonly rows: number; readonly bytesPerRow: number; readonly rssPerRow: number; readonly loadMs: number } => {
  const gc = collectGarbage()
  const before = heldBytes(gc)
  const board = new StockBoard()
  const started = performance.now()
  let chunk = { nodes: [] as Array<string>, skus: [] as Array<string>, units: [] as Array<number>, revisions: [] as Array<number> }
  const flush = () => {
    board.apply(chunk)
    chunk = { nodes: [], skus: [], units: [], revisions: [] }
  }
  for (let s = 1; s <= skus; s++) {
    const sku = skuCode(tag, s)
    for (let k = 1; k <= HOLDERS.length; k++) {
      if (!holds(s, k)) continue
      chunk.nodes.push(HOLDERS[k - 1]!)
      chunk.skus.push(sku)
      chunk.units.push(unitsAt(s, k))
      chunk.revisions.push(1)
    }
    if (chunk.skus.length >= 100_000) flush()
  }
  flush()
  const loadMs = performance.now() - started
  const after = heldBytes(gc)
  if (board.unitsOf(HOLDERS[0]!, skuCode(tag, 1)) !== unitsAt(1, 1)) throw new BenchmarkFailure("the in-process board does not hold the seeded stock")
  return { rows: board.rows, bytesPerRow: (after.held - before.held) / board.rows, rssPerRow: (after.rss - before.rss) / board.rows, loadMs }
}

const residentMiB = (pid: number): number => {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  return Number(match?.[1] ?? 0) / 1024
}

const feedBatch = async (server: ServerHandle, sequence: number, changes: ReadonlyArray<StockChange>) => {
  await postStockChanges(server.url, sequence, changes)
}

const unitsOn = async (server: ServerHandle, sku: string, node: string): Promise<number | undefined> => {
  const answer = await get(`${server.url}/v1/stock/${encodeURIComponent(sku)}`, BENCH_CAPACITY_KEY)
  const holders = (JSON.parse(answer.text) as { holders: ReadonlyArray<{ node: string; units: number }> }).holders
  return holders.find((row) => row.node === node)?.units
}

/** Polls `server` every `everyMs` until `node` holds `units` of `sku`; answers when (performance.now()). */
const seenOn = async (server: ServerHandle, sku: string, node: string, units: number, everyMs: number, deadlineMs = 30_000): Promise<number> => {
  const deadline = performance.now() + deadlineMs
  while (performance.now() < deadline) {
    if (await unitsOn(server, sku, node) === units) return performance.now()
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
  throw new BenchmarkFailure(`${units} units of ${sku} at ${node} not seen on the other replica within ${deadlineMs} ms`)
}

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
}

interface CpuTaken {
  readonly writer: number | undefined
  readonly follower: number | undefined
  readonly postgres: ReadonlyMap<number, number> | undefined
  readonly redis: ReadonlyMap<number, number> | undefined
}

/** CPU seconds used so far by each party of the feed (one server is both where there is no second). */
const cpuTaken = (writer: ServerHandle, follower: ServerHandle, database: string | undefined): CpuTaken => ({
  writer: processCpuSeconds(writer.pid),
  follower: follower === writer ? undefined : processCpuSeconds(follower.pid),
  postgres: database === undefined ? undefined : databaseBackendsCpuSeconds(database),
  redis: follower === writer ? undefined : commandCpuSeconds("redis-server")
})

const usedSince = (before: ReadonlyMap<number, number> | undefined, after: ReadonlyMap<number, number> | undefined): number | undefined => {
  if (before === undefined || after === undefined) return undefined
  let total = 0
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0)
  return total
}

/**
 * Where the CPU of the feed went, in µs per row: steadier than rows/s on a shared machine, and
 * what says which party to make cheaper (their sum over the cores is the ceiling of rows/s).
 */
const cpuPerRow = (before: CpuTaken, after: CpuTaken, rows: number): ReadonlyArray<{ readonly name: string; readonly micros: number }> => {
  const shares: Array<[string, number | undefined]> = [
    ["the server fed (all threads)", before.writer === undefined || after.writer === undefined ? undefined : after.writer - before.writer],
    ["the other server (all threads)", before.follower === undefined || after.follower === undefined ? undefined : after.follower - before.follower],
    ["PostgreSQL (the backends of DATABASE_URL's database)", usedSince(before.postgres, after.postgres)],
    ["Redis (the whole redis-server, shared)", usedSince(before.redis, after.redis)]
  ]
  return shares.flatMap(([name, seconds]) => (seconds === undefined ? [] : [{ name, micros: (seconds * 1e6) / rows }]))
}

export const stockDeltas: Benchmark = {
  name: "stock-deltas",
  description: `POST /v1/stock/changes (issue 25): stock rows seeded into PostgreSQL over the demo network's ${HOLDERS.length} holding nodes (about ${ROWS_PER_SKU} rows per SKU), the first server started again over them and a second started over them (its start-up time, RSS), the bytes per row of the in-process StockBoard, then batches of ${BATCH_ROWS} rows from ${SENDERS} senders through one server until the other answers with the last (rows/s end to end, and the CPU per row of each server, PostgreSQL and Redis), and single-row probes while 1,000 rows/s arrive (delay until the other server answers with them).`,
  sizeUnit: "stock rows seeded",
  defaultSize: 2_000_000,
  smokeSize: 2_000,
  defaultRuns: 3,
  configuration: () =>
    databaseUrl() !== undefined && redisUrl() !== undefined
      ? "two servers (npm start's bundle and flags, RUN_WORKERS=false) over one PostgreSQL (DATABASE_URL) and one Redis (REDIS_URL); the feed through the first, the second followed"
      : "one server on the runner's infrastructure (no DATABASE_URL and REDIS_URL: no second replica to follow, no seeded start-up)",
  open: async (setup) => {
    const tag = runTag()
    const database = databaseUrl()
    const redis = redisUrl()
    const shared = database !== undefined && redis !== undefined
    const events = `bench:${tag}:capacity:events`
    const settings = { RUN_WORKERS: "false", CAPACITY_EVENTS_STREAM: events, CAPACITY_STOCK_STREAM: `${events}:stock` }
    const skus = Math.max(1, Math.round(setup.size / ROWS_PER_SKU))
    const servers: Array<ServerHandle> = []
    const close = async () => {
      for (const server of servers) await server.stop()
      if (redis !== undefined) await deleteKeys(redis, [events, `${events}:stock`]).catch(() => undefined)
      if (database !== undefined) {
        const client = new pg.Client({ connectionString: database })
        await client.connect()
        await client.query(`DELETE FROM capacity_stock WHERE sku LIKE $1`, [`BENCH-${tag}-%`]).finally(() => client.end())
      }
    }
    const opened: Array<Figure> = []
    let writer: ServerHandle
    let follower: ServerHandle
    try {
      writer = await startServer(settings, setup.progress)
      servers.push(writer)
      if (shared) {
        const client = new pg.Client({ connectionString: database })
        await client.connect()
        const seeded = await client.query(SEED, [tag, skus, HOLDERS]).finally(() => client.end())
        setup.progress(`seeded ${seeded.rowCount ?? 0} stock rows of ${skus} SKUs`)
        // The first server started before the rows (its migrations made the table): started again, it
        // holds them as the second will, rather than reading all of them at its reconciler's next pass,
        // in the middle of the feed.
        await writer.stop()
        servers.splice(servers.indexOf(writer), 1)
        writer = await startServer(settings, setup.progress)
        servers.push(writer)
        const started = performance.now()
        follower = await startServer(settings, setup.progress)
        const startMs = performance.now() - started
        servers.push(follower)
        const loaded = /stock: (\d+) rows of (\d+) SKUs loaded from Postgres in (\d+) ms/.exec(follower.logHead())
        const rows = Number(loaded?.[1] ?? Number.NaN)
        const rss = residentMiB(follower.pid)
        // CPU is steadier than wall time on a shared machine: all the process did up to listening.
        const startCpuMs = (processCpuSeconds(follower.pid) ?? Number.NaN) * 1000
        setup.progress(`second server: listening after ${startMs.toFixed(0)} ms (CPU ${startCpuMs.toFixed(0)} ms), ${rows} stock rows loaded in ${loaded?.[3] ?? "?"} ms, RSS ${rss.toFixed(0)} MiB`)
        opened.push(
          figure(`replica start-up to listening, ${rows} stock rows`, "ms", startMs, { better: "lower", goal: { on: "median", atMost: 10_000, source: "issue 25: a replica restarts in ≤ 10 s" } }),
          figure(`replica start-up CPU time (user + system, to listening), ${rows} stock rows`, "ms", startCpuMs, { better: "lower" }),
          figure(`stock load from PostgreSQL at start-up, ${rows} rows`, "ms", Number(loaded?.[3] ?? Number.NaN), { better: "lower" }),
          figure(`replica RSS after start-up, ${rows} stock rows`, "MiB", rss, { better: "lower", goal: { on: "median", atMost: 600, source: "issue 25: RSS ≤ 600 MiB for a few million rows" } })
        )
      } else {
        setup.note("Without DATABASE_URL and REDIS_URL there is one server: rows/s end to end is PostgreSQL and that one replica; no start-up or visibility figures.")
        follower = writer
      }
    } catch (error) {
      await close()
      throw error
    }
    const memory = inProcessBytesPerRow(tag, skus)
    setup.progress(`in-process StockBoard: ${memory.rows} rows, ${memory.bytesPerRow.toFixed(1)} bytes a row (RSS ${memory.rssPerRow.toFixed(1)}), built in ${memory.loadMs.toFixed(0)} ms`)

    let sequence = Date.now() * 100
    const run = async (): Promise<ReadonlyArray<Figure>> => {
      // Memory per row only at full size: a few thousand rows are within the noise of the heap (even below zero).
      const figures: Array<Figure> = [
        ...opened,
        ...(setup.scale === "smoke" ? [] : [
          figure(`bytes per stock row, in-process StockBoard (${memory.rows} rows, heap + array buffers after GC)`, "bytes", memory.bytesPerRow, { better: "lower" }),
          figure(`RSS growth per stock row, in-process StockBoard (${memory.rows} rows)`, "bytes", memory.rssPerRow, { better: "lower" })
        ])
      ]
      // Throughput: every batch sets existing rows (and some new ones) with new units.
      const deltaRows = setup.scale === "smoke" ? 2_000 : Math.min(400_000, Math.max(BATCH_ROWS * 4, setup.size / 5))
      const batchRows = setup.scale === "smoke" ? 500 : BATCH_ROWS
      const batches = Math.ceil(deltaRows / batchRows)
      const round = sequence
      const batchOf = (b: number) =>
        Array.from({ length: batchRows }, (_, i) => {
          const row = (b * batchRows + i) * 7919
          const s = 1 + (row % skus)
          return { node: HOLDERS[Math.floor(row / 8) % HOLDERS.length]!, sku: skuCode(tag, s), units: (round + b + i) % 500 }
        })
      const bodies = Array.from({ length: batches }, (_, b) => batchOf(b))
      const marker = `BENCH-${tag}-MARK`
      const ownDatabase = database === undefined ? undefined : new URL(database).pathname.slice(1)
      const cpuBefore = cpuTaken(writer, follower, ownDatabase)
      const started = performance.now()
      let next = 0
      await withServerLog(writer, () =>
        Promise.all(Array.from({ length: SENDERS }, async () => {
          while (next < batches) {
            const b = next++
            await feedBatch(writer, ++sequence, bodies[b]!)
          }
        })))
      const markUnits = (sequence % 1000) + 1
      await feedBatch(writer, ++sequence, [{ node: HOLDERS[0]!, sku: marker, units: markUnits }])
      const ended = await withServerLog(follower, () => seenOn(follower, marker, HOLDERS[0]!, markUnits, 2))
      const cpu = cpuPerRow(cpuBefore, cpuTaken(writer, follower, ownDatabase), batches * batchRows)
      const seconds = (ended - started) / 1000
      const rowsPerSecond = (batches * batchRows + 1) / seconds
      setup.progress(`${batches * batchRows} rows in ${batches} batches: ${rowsPerSecond.toFixed(0)} rows/s end to end; CPU µs per row: ${cpu.map((share) => `${share.name} ${share.micros.toFixed(1)}`).join(", ")}`)
      figures.push(figure(
        `rows/s applied end to end (PostgreSQL and ${follower === writer ? 1 : 2} replica(s)), batches of ${batchRows}, ${SENDERS} senders`,
        "rows/s",
        rowsPerSecond,
        { goal: { on: "median", atLeast: 50_000, source: "issue 25: ≥ 50k rows/s applied end to end" } }
      ))
      for (const share of cpu) figures.push(figure(`CPU per row applied end to end: ${share.name}`, "µs", share.micros, { better: "lower" }))

      if (follower !== writer) {
        // Visibility: single-row probes through the first server while 1,000 rows/s arrive, polled on the second.
        const backgroundFeed = startStockFeeder({
          baseUrl: writer.url,
          everyMs: 100,
          batchOf: (b) => batchOf(b % batches).slice(0, 100),
          nextSequence: () => ++sequence
        })
        const probes = setup.scale === "smoke" ? 10 : 200
        const delays: Array<number> = []
        const probeSku = `BENCH-${tag}-PROBE`
        try {
          for (let i = 0; i < probes; i++) {
            const units = (sequence % 100_000) + i
            const sent = performance.now()
            await feedBatch(writer, ++sequence, [{ node: HOLDERS[1]!, sku: probeSku, units }])
            delays.push(await seenOn(follower, probeSku, HOLDERS[1]!, units, 1) - sent)
            await new Promise((resolve) => setTimeout(resolve, 20))
          }
        } finally {
          await backgroundFeed.stop()
        }
        setup.progress(`visibility on the other replica: p50 ${percentile(delays, 50).toFixed(1)} ms, p99 ${percentile(delays, 99).toFixed(1)} ms`)
        figures.push(
          figure("delay until a delta is answered by the other replica, p50 (1,000 rows/s arriving)", "ms", percentile(delays, 50), { better: "lower" }),
          figure("delay until a delta is answered by the other replica, p99 (1,000 rows/s arriving)", "ms", percentile(delays, 99), {
            better: "lower",
            goal: { on: "median", atMost: 1_000, source: "issue 25: visible on every replica within 1 s at p99" }
          })
        )
      }
      return figures
    }
    return { run, close }
  }
}
