/**
 * StreamQueue on Redis Streams through node-redis.
 *
 * One shared connection serves every non-blocking command; blocking reads get
 * connections of their own (see BlockingConnections). node-redis' per-command
 * timeout timers are turned off because they cost more than half the batching
 * throughput; each operation is bounded by an Effect timeout instead, and
 * commands fail at once instead of queueing while Redis is unreachable.
 */
import { Effect, FiberSet, Layer, Option, Result } from "effect"
import type { Scope } from "effect"
import { createClient } from "redis"
import * as BlockingConnections from "./internal/BlockingConnections.ts"
import type { Client } from "./internal/BlockingConnections.ts"
import * as replies from "./internal/redisReplies.ts"
import * as scripts from "./internal/scripts.ts"
import * as StreamId from "./internal/StreamId.ts"
import type { Script } from "./internal/scripts.ts"
import * as validate from "./internal/validate.ts"
import type { DeadLetter, Delivery, GroupStats, Payload, QueueDurability, StreamQueueShape } from "./StreamQueue.ts"
import { deadStream, QueueError, StreamQueue } from "./StreamQueue.ts"

export interface Options {
  readonly url: string
  /** Bound on one publish (one MULTI/EXEC round trip). Default 5000. */
  readonly publishTimeoutMs?: number
  /** Bound on every other command, on top of `blockMs` for blocking reads, and on connecting. Default 5000. */
  readonly commandTimeoutMs?: number
  /** Longest wait between reconnection attempts while Redis is unreachable. Default 2000. */
  readonly reconnectMaxDelayMs?: number
}

const messageOf = (cause: unknown): string => cause instanceof Error ? cause.message : String(cause)

const attempt = <A>(operation: string, timeoutMs: number, f: () => Promise<A>): Effect.Effect<A, QueueError> =>
  Effect.tryPromise({
    try: f,
    catch: (cause) => new QueueError({ operation, message: messageOf(cause) })
  }).pipe(
    Effect.timeoutOrElse({
      duration: timeoutMs,
      orElse: () => Effect.fail(new QueueError({ operation, message: `no reply from Redis within ${timeoutMs} ms` }))
    })
  )

const decode = <A>(operation: string, decoded: Result.Result<A, string>): Effect.Effect<A, QueueError> =>
  Result.match(decoded, {
    onFailure: (message) => Effect.fail(new QueueError({ operation, message: `unexpected reply: ${message}` })),
    onSuccess: Effect.succeed
  })

/** Bytes go out as they are (a Buffer view, no copy): a large payload is never turned into a string. */
const wire = (payload: string | Uint8Array): string | Buffer =>
  typeof payload === "string" ? payload : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength)

const toDelivery = (entry: replies.RawEntry, deliveries: number): Delivery => {
  const traceparent = entry.fields["traceparent"]
  return traceparent === undefined
    ? { id: entry.id, payload: entry.fields["payload"] ?? "", deliveries }
    : { id: entry.id, payload: entry.fields["payload"] ?? "", deliveries, traceparent }
}

/** What Redis keeps across a restart, from its `appendonly` and `appendfsync` settings. */
export const describeDurability = (appendonly: string | undefined, appendfsync: string | undefined): QueueDurability => {
  if (appendonly !== "yes") {
    return {
      durable: false,
      description: "Redis runs without its append-only file (appendonly no): a Redis restart loses the products accepted but not yet persisted (their loads end FAILED); set appendonly yes"
    }
  }
  return {
    durable: true,
    description: appendfsync === "always"
      ? "Redis append-only file, fsync on every write: nothing accepted is lost by a Redis or machine crash"
      : appendfsync === "no"
      ? "Redis append-only file, fsync left to the OS: a Redis crash loses nothing, a machine crash up to about 30 s of writes"
      : "Redis append-only file, fsync every second: a Redis crash loses nothing, a machine crash up to 1 s of writes"
  }
}

const isMissing = (error: unknown) => error instanceof Error && /^(ERR no such key|NOGROUP)/.test(error.message)

/** XINFO GROUPS for pending and lag, XPENDING for the idle time of the oldest pending entry. */
const groupStatsOf = async (client: Client, stream: string, group: string): Promise<GroupStats> => {
  try {
    const info = (await client.xInfoGroups(stream)).find((g) => String(g.name) === group)
    if (info === undefined) return { pending: 0, lag: 0, oldestPendingMs: 0 }
    const pending = Number(info.pending)
    const [oldest] = pending > 0 ? await client.xPendingRange(stream, group, "-", "+", 1) : []
    const lag: unknown = info.lag
    return { pending, lag: typeof lag === "number" ? lag : null, oldestPendingMs: oldest === undefined ? 0 : Number(oldest.millisecondsSinceLastDelivery) }
  } catch (error) {
    if (isMissing(error)) return { pending: 0, lag: 0, oldestPendingMs: 0 }
    throw error
  }
}

export const make = (options: Options): Effect.Effect<StreamQueueShape, QueueError, Scope.Scope> =>
  Effect.gen(function*() {
    const publishTimeoutMs = options.publishTimeoutMs ?? 5000
    const commandTimeoutMs = options.commandTimeoutMs ?? 5000
    const reconnectMaxDelayMs = options.reconnectMaxDelayMs ?? 2000
    // The connection's event handlers log from outside any fiber: in fibers of the queue's scope.
    const log = yield* FiberSet.makeRuntime<never, void, never>()

    const create = (reconnect: boolean): Client =>
      createClient({
        url: options.url,
        disableOfflineQueue: true,
        commandOptions: { timeout: 0 },
        socket: {
          connectTimeout: commandTimeoutMs,
          reconnectStrategy: reconnect
            ? (retries) => Math.min(50 * 2 ** retries, reconnectMaxDelayMs) + Math.floor(Math.random() * 100)
            : false
        }
      })

    const shared = yield* Effect.try({
      try: () => create(true),
      catch: (cause) => new QueueError({ operation: "connect", message: messageOf(cause) })
    })
    // Without a listener, node-redis' 'error' events would crash the process.
    let state: "starting" | "up" | "down" = "starting"
    shared.on("error", (error: unknown) => {
      if (state === "up") log(Effect.logWarning(`Redis connection lost, reconnecting: ${messageOf(error)}`))
      if (state !== "starting") state = "down"
    })
    shared.on("ready", () => {
      if (state === "down") log(Effect.logInfo("Redis connection restored"))
      state = "up"
    })
    // Start-up does not wait for Redis beyond one bounded attempt: the client keeps reconnecting.
    const connecting = shared.connect()
    connecting.catch(() => undefined)
    yield* attempt("connect", commandTimeoutMs, () => connecting).pipe(
      Effect.catch((error) => Effect.logWarning(`Redis not reachable yet, will keep trying: ${error.message}`))
    )
    yield* Effect.addFinalizer(() =>
      attempt("close", commandTimeoutMs, () => shared.close()).pipe(
        Effect.ignore,
        Effect.andThen(Effect.sync(() => shared.destroy()))
      )
    )

    const blocking = yield* BlockingConnections.make({
      create: () => create(false),
      connect: (operation, client) => {
        client.on("error", () => undefined)
        return Effect.asVoid(attempt(operation, commandTimeoutMs, () => client.connect()))
      }
    })

    // MULTI and pipelines bypass node-redis' offline check, so readiness is checked here.
    const ready = (operation: string) =>
      Effect.suspend(() =>
        shared.isReady ? Effect.void : Effect.fail(new QueueError({ operation, message: "Redis is not connected" }))
      )

    const command = <A>(operation: string, f: (client: Client) => Promise<A>, timeoutMs = commandTimeoutMs) =>
      Effect.andThen(ready(operation), attempt(operation, timeoutMs, () => f(shared)))

    // BLOCK 0 would wait forever: without a wait the shared connection serves the read.
    const blockingCommand = <A>(operation: string, blockMs: number, f: (client: Client) => Promise<A>) =>
      blockMs <= 0
        ? command(operation, f)
        : Effect.andThen(
          ready(operation),
          blocking.use(operation, (client) => attempt(operation, blockMs + commandTimeoutMs, () => f(client)))
        )

    const publish: StreamQueueShape["publish"] = (stream, payloads, publishOptions) =>
      Effect.gen(function*() {
        const maxLen = publishOptions?.maxLen
        if (maxLen !== undefined) yield* validate.nonNegativeInt("publish", "maxLen", maxLen)
        if (payloads.length === 0) return []
        const trim = (i: number) =>
          i === payloads.length - 1 && maxLen !== undefined
            ? { TRIM: { strategy: "MAXLEN" as const, strategyModifier: "=" as const, threshold: maxLen } }
            : undefined
        const track = publishOptions?.track
        const traceparent = publishOptions?.traceparent
        const fields = (payload: Payload) =>
          traceparent === undefined ? { payload: wire(payload) } : { payload: wire(payload), traceparent }
        const [only] = payloads
        if (payloads.length === 1 && only !== undefined && track === undefined) {
          // One XADD is atomic by itself: MULTI/EXEC would only add two commands to the round trip.
          const id = yield* command("publish", (client) => client.xAdd(stream, "*", fields(only), trim(0)), publishTimeoutMs)
          return yield* decode("publish", replies.ids([id], 1))
        }
        const multi = shared.multi()
        payloads.forEach((given, i) => {
          multi.xAdd(stream, "*", fields(given), trim(i))
        })
        // After the entries, so that the ids are the first replies.
        if (track !== undefined && track.members.length > 0) multi.sAdd(track.set, [...track.members])
        const reply = yield* command("publish", () => multi.exec(), publishTimeoutMs)
        return yield* decode("publish", replies.ids(reply.slice(0, payloads.length), payloads.length))
      })

    const ensureGroup: StreamQueueShape["ensureGroup"] = (stream, group) =>
      command("ensureGroup", (client) => client.xGroupCreate(stream, group, "0", { MKSTREAM: true })).pipe(
        Effect.as(true),
        Effect.catchIf((error) => error.message.startsWith("BUSYGROUP"), () => Effect.succeed(false))
      )

    const read: StreamQueueShape["read"] = (stream, group, consumer, readOptions) =>
      validate.readOptions("read", readOptions).pipe(
        Effect.andThen(
          blockingCommand("read", readOptions.blockMs, (client) =>
            client.xReadGroup(group, consumer, { key: stream, id: ">" }, {
              COUNT: readOptions.count,
              ...(readOptions.blockMs > 0 ? { BLOCK: readOptions.blockMs } : {})
            }))
        ),
        Effect.flatMap((reply) => decode("read", replies.streamEntries(reply))),
        Effect.map((entries) => entries.map((entry) => toDelivery(entry, 1)))
      )

    const ack: StreamQueueShape["ack"] = (stream, group, ids, ackOptions) => {
      if (ids.length === 0) return Effect.void
      const untrack = ackOptions?.untrack
      if (ackOptions?.deleteEntries !== true && (untrack === undefined || untrack.members.length === 0)) {
        return Effect.asVoid(command("ack", (client) => client.xAck(stream, group, [...ids])))
      }
      return Effect.asVoid(command("ack", (client) => {
        const multi = client.multi().xAck(stream, group, [...ids])
        if (ackOptions?.deleteEntries === true) multi.xDel(stream, [...ids])
        if (untrack !== undefined && untrack.members.length > 0) multi.sRem(untrack.set, [...untrack.members])
        return multi.exec()
      }))
    }

    // EVALSHA, loading the script on first use and again after a server restart.
    const evaluate = (operation: string, script: Script, keys: ReadonlyArray<string>, args: ReadonlyArray<string>) => {
      const rest = [String(keys.length), ...keys, ...args]
      return command(operation, (client) => client.sendCommand(["EVALSHA", script.sha1, ...rest])).pipe(
        Effect.catchIf(
          (error) => error.message.startsWith("NOSCRIPT"),
          () => command(operation, (client) => client.sendCommand(["EVAL", script.source, ...rest]))
        )
      )
    }

    const claimStale: StreamQueueShape["claimStale"] = (stream, group, consumer, claimOptions) =>
      Effect.gen(function*() {
        yield* validate.nonNegativeInt("claimStale", "minIdleMs", claimOptions.minIdleMs)
        yield* validate.positiveInt("claimStale", "count", claimOptions.count)
        const reply = yield* evaluate("claimStale", scripts.claimStale, [stream], [
          group,
          consumer,
          String(claimOptions.minIdleMs),
          String(claimOptions.count)
        ])
        const entries = yield* decode("claimStale", replies.claimed(reply))
        return entries.map((entry) => toDelivery(entry, entry.deliveries))
      })

    // JUSTID: XCLAIM leaves the counter alone, and RETRYCOUNT sets it.
    const uncountDelivery: StreamQueueShape["uncountDelivery"] = (stream, group, consumer, delivery) =>
      Effect.asVoid(command("uncountDelivery", (client) =>
        client.xClaimJustId(stream, group, consumer, 0, delivery.id, { RETRYCOUNT: Math.max(0, delivery.deliveries - 1) })))

    const deadLetter: StreamQueueShape["deadLetter"] = (stream, group, delivery, reason, ackOptions) =>
      // A malformed id would fail the script after the XADD: refuse it before anything is written.
      Option.isNone(StreamId.parse(delivery.id))
        ? Effect.fail(new QueueError({ operation: "deadLetter", message: `Invalid stream ID specified: ${delivery.id}` }))
        : validate.optionalNonNegativeInt("deadLetter", "keepDead", ackOptions?.keepDead).pipe(
          Effect.andThen(evaluate("deadLetter", scripts.deadLetter, [stream, deadStream(stream), ackOptions?.untrack?.set ?? `${stream}:untracked`], [
            group,
            delivery.id,
            delivery.payload,
            reason,
            String(delivery.deliveries),
            ackOptions?.deleteEntries === true ? "1" : "0",
            ackOptions?.keepDead === undefined ? "" : String(ackOptions.keepDead),
            ...(ackOptions?.untrack?.members ?? [])
          ])),
          Effect.asVoid
        )

    const readAfter: StreamQueueShape["readAfter"] = (stream, afterId, readOptions) =>
      validate.readOptions("readAfter", readOptions).pipe(
        Effect.andThen(
          blockingCommand("readAfter", readOptions.blockMs, (client) =>
            client.xRead({ key: stream, id: afterId }, {
              COUNT: readOptions.count,
              ...(readOptions.blockMs > 0 ? { BLOCK: readOptions.blockMs } : {})
            }))
        ),
        Effect.flatMap((reply) => decode("readAfter", replies.streamEntries(reply))),
        Effect.map((entries) => entries.map((entry) => ({ id: entry.id, payload: entry.fields["payload"] ?? "" })))
      )

    // The last id generated, even when that entry has been deleted since; a missing stream has none yet.
    const lastId: StreamQueueShape["lastId"] = (stream) =>
      command("lastId", (client) => client.xInfoStream(stream)).pipe(
        Effect.map((info) => String(info["last-generated-id"])),
        Effect.catchIf((error) => error.message.includes("no such key"), () => Effect.succeed("0-0"))
      )

    const readDead: StreamQueueShape["readDead"] = (stream, readOptions) =>
      validate.positiveInt("readDead", "count", readOptions.count).pipe(
        Effect.andThen(command("readDead", (client) => client.xRange(deadStream(stream), "-", "+", { COUNT: readOptions.count }))),
        Effect.flatMap((reply) => decode("readDead", replies.entries(reply))),
        Effect.map((entries) =>
          entries.map((entry): DeadLetter => ({
            id: entry.id,
            payload: entry.fields["payload"] ?? "",
            reason: entry.fields["reason"] ?? "",
            deliveries: Number(entry.fields["deliveries"] ?? "0"),
            sourceId: entry.fields["sourceId"] ?? ""
          }))
        )
      )

    const durability: StreamQueueShape["durability"] = command("durability", (client) => client.configGet(["appendonly", "appendfsync"])).pipe(
      Effect.map((config) => describeDurability(config["appendonly"], config["appendfsync"])),
      // Managed servers often refuse CONFIG (an error reply: ERR unknown command, NOPERM): say so rather than guess.
      Effect.catchIf(
        (error) => /^(ERR|NOPERM|WRONGPASS|NOAUTH)\b/.test(error.message),
        (error) =>
          Effect.succeed({
            durable: null,
            description: `Redis did not let its persistence be checked (CONFIG GET: ${error.message}); run it with appendonly yes, or a restart loses accepted products`
          })
      )
    )

    return StreamQueue.of({
      kind: "redis",
      processLocal: false,
      publish,
      ensureGroup,
      read,
      ack,
      claimStale,
      uncountDelivery,
      deadLetter,
      readAfter,
      lastId,
      readDead,
      tracked: (set) => command("tracked", (client) => client.sMembers(set)),
      length: (stream) => command("length", (client) => client.xLen(stream)),
      groupStats: (stream, group) => command("groupStats", (client) => groupStatsOf(client, stream, group)),
      durability,
      ping: Effect.asVoid(command("ping", (client) => client.ping()))
    })
  })

/** Builds even while Redis is down (operations fail with QueueError until it is back); fails only on a malformed URL. */
export const layer = (options: Options): Layer.Layer<StreamQueue, QueueError> => Layer.effect(StreamQueue, make(options))
