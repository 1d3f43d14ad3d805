import type { StockColumns } from "@retail/capacity"
import { StreamQueue } from "@retail/queue"
import type { StockWritten } from "@retail/store"
import { Context, Effect, Layer, Option, Result, type Scope } from "effect"
import { followStream } from "../FollowStream.ts"
import { StockConfig } from "./StockConfig.ts"

/** Which transaction an entry's rows come from, and how many rows it set in all (an entry holds at most 5,000). */
export interface StockPart {
  readonly writer: string | undefined
  readonly of: number
}

export interface StockFollower {
  readonly apply: (rows: StockColumns, part: StockPart) => Effect.Effect<void>
  /** Reload from Postgres: after the follower lost its place (Redis unreachable for a while). */
  readonly resync: Effect.Effect<void, unknown>
}

export interface StockEventsShape {
  /** Where the stream stands now; taken before loading from Postgres, so nothing committed after the load is missed. */
  readonly position: Effect.Effect<string>
  /** Rows as committed (absolute units, revisions), after the commit; a failure is logged (the reconciler catches up). */
  readonly publish: (written: StockWritten) => Effect.Effect<void>
  /** Applies every entry after `from`, in order, for the life of the scope; supervised. */
  readonly follow: (from: string, follower: StockFollower) => Effect.Effect<void, never, Scope.Scope>
}

/** Rows per stream entry: about 150-250 KB of JSON. */
export const ROWS_PER_ENTRY = 5_000
/** Entries kept (MAXLEN ~): at most about 5 million rows, enough for a follower to catch up after a pause. */
const STREAM_MAX_LEN = 1_000
/** Entries per read: a few MB at most, so one read never holds the loop long. */
const READ = { count: 8, blockMs: 2_000 }

/**
 * One entry: the rows' columns, node codes once each (`nodes`, indexed by `node`). No Schema: an
 * entry holds up to 5,000 rows, and decoding them as structs costs more than applying them.
 */
interface Entry {
  readonly origin: string
  readonly writer?: string | undefined
  readonly of: number
  readonly nodes: ReadonlyArray<string>
  readonly node: ReadonlyArray<number>
  readonly sku: ReadonlyArray<string>
  readonly units: ReadonlyArray<number>
  readonly revision: ReadonlyArray<number>
}

const encodeEntry = (origin: string, written: StockWritten, from: number, to: number): string => {
  const rows = written.rows
  const ids = new Map<string, number>()
  const nodes: Array<string> = []
  const node: Array<number> = []
  for (let i = from; i < to; i++) {
    const code = rows.nodes[i]!
    let id = ids.get(code)
    if (id === undefined) {
      id = nodes.length
      nodes.push(code)
      ids.set(code, id)
    }
    node.push(id)
  }
  const entry: Entry = {
    origin,
    writer: written.writer,
    of: rows.skus.length,
    nodes,
    node,
    sku: rows.skus.slice(from, to),
    units: Array.from({ length: to - from }, (_, i) => rows.units[from + i]!),
    revision: Array.from({ length: to - from }, (_, i) => rows.revisions[from + i]!)
  }
  return JSON.stringify(entry)
}

const isCount = (value: unknown): value is number => typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 0xffff_ffff

/** The rows of an entry, or why it cannot be read (skipped; the reconciler brings its rows). */
const decodeEntry = (payload: string): Result.Result<{ readonly rows: StockColumns; readonly part: StockPart }, string> => {
  let entry: Partial<Entry>
  try {
    entry = JSON.parse(payload) as Partial<Entry>
  } catch (error) {
    return Result.fail(`not JSON: ${error instanceof Error ? error.message : String(error)}`)
  }
  const { nodes, node, sku, units, revision, writer, of } = entry
  if (!Array.isArray(nodes) || !Array.isArray(node) || !Array.isArray(sku) || !Array.isArray(units) || !Array.isArray(revision)) {
    return Result.fail("missing columns")
  }
  const count = sku.length
  if (node.length !== count || units.length !== count || revision.length !== count) return Result.fail("columns of different lengths")
  const codes: Array<string> = []
  for (let i = 0; i < count; i++) {
    const code = nodes[node[i]!]
    if (typeof code !== "string" || typeof sku[i] !== "string" || !isCount(units[i]) || !isCount(revision[i])) {
      return Result.fail(`row ${i} is not (node, sku, units, revision)`)
    }
    codes.push(code)
  }
  const part: StockPart = {
    writer: typeof writer === "string" ? writer : undefined,
    of: typeof of === "number" ? of : Number.POSITIVE_INFINITY
  }
  return Result.succeed({ rows: { nodes: codes, skus: sku, units, revisions: revision }, part })
}

const none: StockEventsShape = {
  position: Effect.succeed("0-0"),
  publish: () => Effect.void,
  follow: () => Effect.void
}

/** As CapacityEvents: `origin` names this process, whose own entries are passed over (already applied). */
const onStream = (queue: typeof StreamQueue.Service, stream: string, origin: string): StockEventsShape => {
  const ownMark = `{"origin":${JSON.stringify(origin)},`
  return {
    position: queue.lastId(stream).pipe(
      Effect.catch((error) =>
        Effect.as(Effect.logWarning(`stock events: no position on ${stream} (${error.message}); following new entries only`), "$")
      )
    ),
    publish: (written) => {
      const rows = written.rows
      const payloads: Array<string> = []
      for (let from = 0; from < rows.skus.length; from += ROWS_PER_ENTRY) {
        payloads.push(encodeEntry(origin, written, from, Math.min(rows.skus.length, from + ROWS_PER_ENTRY)))
      }
      return payloads.length === 0 ? Effect.void : queue.publish(stream, payloads, { maxLen: STREAM_MAX_LEN }).pipe(
        Effect.catch((error) =>
          Effect.logError(`stock events: ${rows.skus.length} rows not published on ${stream}; other processes read them at their next reconciliation`, error)
        ),
        Effect.asVoid
      )
    },
    follow: (from, follower) =>
      followStream(from, {
        queue,
        stream,
        label: "stock events",
        read: READ,
        isOwn: (payload) => payload.startsWith(ownMark),
        apply: (entry) =>
          Result.match(decodeEntry(entry.payload), {
            onFailure: (reason) => Effect.logWarning(`stock events: skipping entry ${entry.id}: ${reason}`),
            onSuccess: (decoded) => follower.apply(decoded.rows, decoded.part)
          }),
        resync: follower.resync
      })
  }
}

/** The Redis Stream of stock changes between server processes; nothing when REDIS_URL is unset. */
export class StockEvents extends Context.Service<StockEvents, StockEventsShape>()("@retail/capacity/StockEvents") {
  static readonly None = Layer.succeed(StockEvents, none)

  /** Needs StreamQueue when REDIS_URL is set. */
  static readonly layer = Layer.unwrap(
    Effect.map(StockConfig, (config) =>
      Option.match(config.stream, {
        onNone: () => StockEvents.None,
        onSome: (stream) => Layer.effect(StockEvents, Effect.map(StreamQueue, (queue) => onStream(queue, stream, crypto.randomUUID())))
      }))
  )
}
