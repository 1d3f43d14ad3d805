import { CapacityMetrics } from "@retail/metrics"
import { StreamQueue } from "@retail/queue"
import { columnsOf, resourceOf, type UsageState } from "@retail/store"
import { Clock, Context, Duration, Effect, Layer, Option, Result, Schema, type Scope } from "effect"
import { CapacityConfig } from "./CapacityConfig.ts"
import { followStream } from "./FollowStream.ts"

const UsageEntry = Schema.Struct({
  kind: Schema.String,
  code: Schema.String,
  slot: Schema.String,
  day: Schema.String,
  used: Schema.Number,
  revision: Schema.Number
})

/** The process that published an event; set on publishing (older processes ignore it). */
const origin = { origin: Schema.optional(Schema.String) }

/** What goes on the stream: absolute usage after a commit (applied by revision), a new network version, or network changes. */
export const CapacityEvent = Schema.Union([
  Schema.TaggedStruct("UsageChanged", {
    ...origin,
    reason: Schema.Literals(["CONSUMED", "RELEASED"]),
    orderId: Schema.String,
    usage: Schema.Array(UsageEntry)
  }),
  Schema.TaggedStruct("NetworkReplaced", { ...origin, version: Schema.Number }),
  /** Network change rows as committed (NetworkChanges.ts), applied by sequence. */
  Schema.TaggedStruct("NetworkChanged", {
    ...origin,
    rows: Schema.Array(Schema.Struct({
      kind: Schema.Literals(["HOLIDAY", "BLOCKED", "PICKING_CAPACITY", "NODE_DISPATCH_CAPACITY", "ROUTE_CAPACITY", "ZONE_WINDOW_CAPACITY"]),
      target: Schema.String,
      part: Schema.String,
      date: Schema.String,
      value: Schema.NullOr(Schema.Number),
      sequence: Schema.Number
    }))
  })
])
export type CapacityEvent = typeof CapacityEvent.Type

/**
 * Every field of an event is encoded as it is typed (strings, numbers, literals), so its JSON is
 * JSON.stringify's: the schema's encoder, a walk of the union per event, cost more than the XADD
 * on the order's path. Followers decode with the schema (CapacityEvents.test.ts checks the round trip).
 */
export const encodeEvent = (event: CapacityEvent): string => JSON.stringify(event)
const decode = Schema.decodeUnknownResult(Schema.fromJsonString(CapacityEvent))

export const usageEvent = (reason: "CONSUMED" | "RELEASED", orderId: string, usage: ReadonlyArray<UsageState>): CapacityEvent => ({
  _tag: "UsageChanged",
  reason,
  orderId,
  usage: usage.map((state) => ({ ...columnsOf(state.resource), day: state.date, used: state.used, revision: state.revision }))
})

export const statesOfEvent = (event: Extract<CapacityEvent, { _tag: "UsageChanged" }>): ReadonlyArray<UsageState> => {
  const states: Array<UsageState> = []
  for (const entry of event.usage) {
    const resource = resourceOf(entry)
    if (resource !== undefined) states.push({ resource, date: entry.day, used: entry.used, revision: entry.revision })
  }
  return states
}

export interface Follower {
  readonly apply: (event: CapacityEvent) => Effect.Effect<void>
  /** Rebuild from Postgres: after the follower lost its place (Redis unreachable for a while). */
  readonly resync: Effect.Effect<void, unknown>
}

export interface CapacityEventsShape {
  /** Where the stream stands now; taken before loading from Postgres, so nothing committed after the load is missed. */
  readonly position: Effect.Effect<string>
  /** After the Postgres commit. A failure is logged, not returned: the change is committed and served here. */
  readonly publish: (event: CapacityEvent) => Effect.Effect<void>
  /** As `publish`, the events of several commits in one round trip, in their order. */
  readonly publishAll: (events: ReadonlyArray<CapacityEvent>) => Effect.Effect<void>
  /** Applies every event after `from`, in order, for the life of the scope; supervised. */
  readonly follow: (from: string, follower: Follower) => Effect.Effect<void, never, Scope.Scope>
}

const STREAM_MAX_LEN = 100_000
const READ = { count: 256, blockMs: 2_000 }
/**
 * After a read that found events, the next waits this long: at hundreds of orders a second each
 * read then takes several events (this process's own included, which it passes over) instead of
 * one round trip to Redis per order. It adds at most this much to the replication lag.
 */
const GATHER = Duration.millis(5)

/** How long after its publication (the time in its Redis id) another process's event was applied here. */
const recordLag = (id: string) =>
  Effect.map(Clock.currentTimeMillis, (now) => {
    const published = Number(id.slice(0, id.indexOf("-")))
    if (published > 0) CapacityMetrics.replicaEventLagSeconds.set({}, Math.max(0, now - published) / 1000)
    CapacityMetrics.replicaEventsApplied.add({})
  })

const none: CapacityEventsShape = {
  position: Effect.succeed("0-0"),
  publish: () => Effect.void,
  publishAll: () => Effect.void,
  follow: () => Effect.void
}

/**
 * `origin` names this process on what it publishes: its own events come back on the stream, and
 * everything in them is already applied here (a change reaches the actors before it is published),
 * so they are passed over unread.
 */
const onStream = (queue: typeof StreamQueue.Service, stream: string, origin: string): CapacityEventsShape => {
  const ownMark = `"origin":${JSON.stringify(origin)}`
  const publishAll = (events: ReadonlyArray<CapacityEvent>) =>
    queue.publish(stream, events.map((event) => encodeEvent({ ...event, origin })), { maxLen: STREAM_MAX_LEN }).pipe(
      Effect.catch((error) =>
        Effect.logError(
          `capacity events: ${events.map((event) => event._tag).join(", ")} not published on ${stream}; other processes learn it at their next resync`,
          error
        )
      ),
      Effect.asVoid
    )
  return {
    position: queue.lastId(stream).pipe(
      Effect.catch((error) =>
        Effect.as(Effect.logWarning(`capacity events: no position on ${stream} (${error.message}); following new events only`), "$")
      )
    ),
    publish: (event) => publishAll([event]),
    publishAll,
    follow: (from, follower) =>
      followStream(from, {
        queue,
        stream,
        label: "capacity events",
        read: READ,
        isOwn: (payload) => payload.includes(ownMark),
        apply: (entry) =>
          Result.match(decode(entry.payload), {
            onFailure: (error) => Effect.logWarning(`capacity events: skipping undecodable entry ${entry.id}: ${error.message}`),
            onSuccess: (event) => Effect.andThen(follower.apply(event), recordLag(entry.id))
          }),
        resync: follower.resync,
        afterRead: (found) => (found > 0 && found < READ.count ? Effect.sleep(GATHER) : Effect.void)
      })
  }
}

/** The Redis Stream of capacity events between server processes; nothing when REDIS_URL is unset. */
export class CapacityEvents extends Context.Service<CapacityEvents, CapacityEventsShape>()("@retail/capacity/CapacityEvents") {
  static readonly None = Layer.succeed(CapacityEvents, none)

  /** Needs StreamQueue when REDIS_URL is set. */
  static readonly layer = Layer.unwrap(
    Effect.map(CapacityConfig, (config) =>
      Option.match(config.eventsStream, {
        onNone: () => CapacityEvents.None,
        onSome: (stream) => Layer.effect(CapacityEvents, Effect.map(StreamQueue, (queue) => onStream(queue, stream, crypto.randomUUID())))
      }))
  )
}
