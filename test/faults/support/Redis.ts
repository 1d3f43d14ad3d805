import { COLUMNS_PREFIX, decodeBatchEntry, headerOf } from "@retail/service-upload"
import { Effect, Ref, Result, type Scope } from "effect"
import { join } from "node:path"
import { createClient } from "redis"
import { type Child, freePort, spawnChild, waitUntil } from "./Processes.ts"

export interface RedisServer {
  readonly port: number
  readonly url: string
  /**
   * Starts it (again) on the same port. Without `appendfsync` a restarted Redis is empty (no
   * persistence); with it, it replays the append-only file of `dir` first.
   */
  readonly start: Effect.Effect<void, never, Scope.Scope>
  /** SIGTERM (with AOF, Redis flushes and fsyncs the file before it exits). */
  readonly stop: Effect.Effect<void>
  /** SIGKILL: Redis gets no chance to write anything more. */
  readonly kill: Effect.Effect<void>
  /** SIGSTOP: connections stay open and every command waits, unanswered, until `thaw` (or the end of the scope). */
  readonly freeze: Effect.Effect<void>
  /** SIGCONT after `freeze`. */
  readonly thaw: Effect.Effect<void>
}

export interface RedisOptions {
  /** Persist with an append-only file (`appendonly yes`) in `dir`, fsynced with this policy. Unset: no persistence. */
  readonly appendfsync?: "always" | "everysec"
}

/** A private redis-server on its own port, as a child of the test; without persistence unless `options` asks for AOF. */
export const startRedis = (dir: string, options: RedisOptions = {}): Effect.Effect<RedisServer, never, Scope.Scope> =>
  Effect.gen(function*() {
    const port = yield* freePort
    const url = `redis://127.0.0.1:${port}`
    const current = yield* Ref.make<Child | null>(null)
    const persistence = options.appendfsync === undefined
      ? ["--appendonly", "no"]
      : ["--appendonly", "yes", "--appendfsync", options.appendfsync]
    const start = Effect.gen(function*() {
      const child = yield* spawnChild("redis-server", [
        "--port", String(port), "--bind", "127.0.0.1", "--save", "", ...persistence, "--daemonize", "no", "--dir", dir
      ], { logFile: join(dir, "redis.log") })
      yield* Ref.set(current, child)
      // A replayed AOF answers LOADING until it is read whole; PING succeeds only after.
      yield* waitUntil(`redis on ${port}`, redisCommand(url, ["PING"]), "20 seconds")
    })
    const stopWith = (signal: NodeJS.Signals) => Effect.gen(function*() {
      const child = yield* Ref.get(current)
      if (child === null) return
      yield* child.kill(signal)
      yield* child.exited
      yield* Ref.set(current, null)
    })
    const signal = (name: NodeJS.Signals) => Effect.flatMap(Ref.get(current), (child) => child === null ? Effect.void : child.kill(name))
    yield* start
    return { port, url, start, stop: stopWith("SIGTERM"), kill: stopWith("SIGKILL"), freeze: signal("SIGSTOP"), thaw: signal("SIGCONT") }
  })

type Reply = string | number | null | ReadonlyArray<Reply>

/** One command on a connection of its own (fails while Redis is down). */
export const redisCommand = (url: string, args: ReadonlyArray<string>): Effect.Effect<Reply, Error> =>
  Effect.acquireUseRelease(
    Effect.tryPromise({
      try: () => {
        const client = createClient({ url, socket: { reconnectStrategy: false, connectTimeout: 2000 } })
        client.on("error", () => undefined)
        return client.connect()
      },
      catch: (cause) => new Error(`redis connect: ${String(cause)}`)
    }),
    (client) => Effect.tryPromise({ try: () => client.sendCommand([...args]) as Promise<Reply>, catch: (cause) => new Error(String(cause)) }),
    (client) => Effect.promise(() => client.close().catch(() => undefined))
  ).pipe(Effect.scoped)

/** Ids of the entries pending in a group, with their consumer and delivery count. */
export const pendingEntries = (url: string, stream: string, group: string) =>
  Effect.map(redisCommand(url, ["XPENDING", stream, group, "-", "+", "100000"]), (reply) =>
    (Array.isArray(reply) ? reply : []).map((entry) => {
      const [id, consumer, idleMs, deliveries] = Array.isArray(entry) ? entry : []
      return { id: String(id), consumer: String(consumer), idleMs: Number(idleMs), deliveries: Number(deliveries) }
    }))

export const streamLength = (url: string, stream: string) => Effect.map(redisCommand(url, ["XLEN", stream]), Number)

/** How many entries were ever appended to a stream (XINFO STREAM entries-added), deleted ones included. */
export const entriesAdded = (url: string, stream: string) =>
  Effect.map(redisCommand(url, ["XINFO", "STREAM", stream]), (reply) => {
    // A flat [field, value, ...] list under RESP2, a map under RESP3.
    if (Array.isArray(reply)) return Number(reply[reply.indexOf("entries-added") + 1])
    if (reply instanceof Map) return Number(reply.get("entries-added"))
    return typeof reply === "object" && reply !== null ? Number(Object.entries(reply).find(([key]) => key === "entries-added")?.[1]) : Number.NaN
  })

/** The payloads of every entry of a stream. */
export const streamPayloads = (url: string, stream: string) =>
  Effect.map(redisCommand(url, ["XRANGE", stream, "-", "+"]), (reply) =>
    (Array.isArray(reply) ? reply : []).map((entry) => {
      const [id, fields] = Array.isArray(entry) ? entry : []
      const list = Array.isArray(fields) ? fields : []
      const at = list.indexOf("payload")
      return { id: String(id), payload: String(at >= 0 ? list[at + 1] : "") }
    }))

/** `processCode/batchNo` of a product batches entry, JSON or columns (BATCH_ENTRY_FORMAT); "?" when it is neither. */
export const batchOfPayload = (payload: string | undefined): string =>
  Result.match(decodeBatchEntry(payload ?? ""), {
    onFailure: () => "?",
    onSuccess: (entry) => `${headerOf(entry).processCode}/${headerOf(entry).batchNo}`
  })

/** A product batches entry published as binary columns (BATCH_ENTRY_FORMAT=columns), not as ProductBatch's JSON. */
export const isColumnsEntry = (payload: string | undefined): boolean => (payload ?? "").startsWith(COLUMNS_PREFIX)
