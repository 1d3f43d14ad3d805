/**
 * An in-process StreamQueue with the semantics of Redis Streams, standing in
 * for Redis when none is configured. All state lives in one Ref of persistent
 * collections, so every operation is a single atomic transition.
 */
import { Clock, Effect, HashMap, HashSet, Layer, Option, Ref, Result } from "effect"
import * as OrderedMap from "./internal/OrderedMap.ts"
import * as validate from "./internal/validate.ts"
import * as Wakeups from "./internal/Wakeups.ts"
import * as StreamId from "./internal/StreamId.ts"
import type { DeadLetter, Delivery, GroupStats, Payload, StreamEntry, StreamQueueShape, Tracking } from "./StreamQueue.ts"
import { deadStream, QueueError, StreamQueue } from "./StreamQueue.ts"

type Fields = Readonly<Record<string, string>>

interface Pending {
  readonly consumer: string
  readonly deliveries: number
  readonly deliveredAt: number
}

// Every key of these maps is an id.
const Ids = OrderedMap.make(StreamId.order)
type ById<V> = OrderedMap.OrderedMap<StreamId.StreamId, V>

interface Group {
  readonly lastDelivered: StreamId.StreamId
  readonly pending: ById<Pending>
}

interface Stream {
  readonly entries: ById<Fields>
  readonly lastId: StreamId.StreamId
  readonly groups: HashMap.HashMap<string, Group>
}

type State = HashMap.HashMap<string, Stream>

type Step<A> = Result.Result<readonly [A, State], QueueError>

const emptyStream: Stream = {
  entries: Ids.empty(),
  lastId: StreamId.zero,
  groups: HashMap.empty()
}

const emptyPending: ById<Pending> = Ids.empty()

const streamOf = (state: State, stream: string): Stream => Option.getOrElse(HashMap.get(state, stream), () => emptyStream)

const groupStatsOf = (s: Stream, group: string, now: number): GroupStats =>
  Option.match(HashMap.get(s.groups, group), {
    onNone: () => ({ pending: 0, lag: 0, oldestPendingMs: 0 }),
    onSome: (g) => {
      let lag = 0
      for (const _ of Ids.greaterThan(s.entries, g.lastDelivered)) lag++
      let oldest = now
      for (const [, entry] of Ids.entries(g.pending)) oldest = Math.min(oldest, entry.deliveredAt)
      return { pending: Ids.size(g.pending), lag, oldestPendingMs: now - oldest }
    }
  })

const take = <A>(iterable: Iterable<A>, count: number): Array<A> => {
  const out: Array<A> = []
  if (count <= 0) return out
  for (const item of iterable) {
    out.push(item)
    if (out.length >= count) break
  }
  return out
}

const append = (stream: Stream, fields: ReadonlyArray<Fields>, now: number, maxLen: number | undefined) => {
  const ids: Array<StreamId.StreamId> = []
  let entries = stream.entries
  let lastId = stream.lastId
  for (const f of fields) {
    lastId = StreamId.next(lastId, now)
    ids.push(lastId)
    entries = Ids.set(entries, lastId, f)
  }
  if (maxLen !== undefined) {
    while (Ids.size(entries) > maxLen) {
      const first = Ids.first(entries)
      if (first === undefined) break
      entries = Ids.remove(entries, first[0])
    }
  }
  return { ids, stream: { ...stream, entries, lastId } satisfies Stream }
}

const parseId = (operation: string, id: string): Result.Result<StreamId.StreamId, QueueError> =>
  Result.fromOption(
    StreamId.parse(id),
    () => new QueueError({ operation, message: `Invalid stream ID specified: ${id}` })
  )

const parseIds = (operation: string, ids: ReadonlyArray<string>) => Result.all(ids.map((id) => parseId(operation, id)))

const groupOf = (operation: string, state: State, stream: string, group: string): Result.Result<readonly [Stream, Group], QueueError> => {
  const s = HashMap.get(state, stream)
  const g = Option.flatMap(s, (s) => HashMap.get(s.groups, group))
  return Option.isSome(s) && Option.isSome(g)
    ? Result.succeed([s.value, g.value] as const)
    : Result.fail(new QueueError({ operation, message: `NOGROUP No such key '${stream}' or consumer group '${group}'` }))
}

const ackIn = (group: Group, ids: ReadonlyArray<StreamId.StreamId>): Group => {
  let pending = group.pending
  for (const id of ids) pending = Ids.remove(pending, id)
  return { ...group, pending }
}

const withoutEntries = (stream: Stream, ids: ReadonlyArray<StreamId.StreamId>): Stream => {
  let entries = stream.entries
  for (const id of ids) entries = Ids.remove(entries, id)
  return { ...stream, entries }
}

const withGroup = (state: State, name: string, stream: Stream, groupName: string, group: Group): State =>
  HashMap.set(state, name, { ...stream, groups: HashMap.set(stream.groups, groupName, group) })

const payloadOf = (fields: Fields): string => fields["payload"] ?? ""

const deliveryOf = (id: StreamId.StreamId, fields: Fields, deliveries: number): Delivery => {
  const traceparent = fields["traceparent"]
  return traceparent === undefined
    ? { id: StreamId.format(id), payload: payloadOf(fields), deliveries }
    : { id: StreamId.format(id), payload: payloadOf(fields), deliveries, traceparent }
}

const utf8 = new TextDecoder()
const asText = (payload: Payload): string => (typeof payload === "string" ? payload : utf8.decode(payload))
const fieldsOf = (payload: Payload, traceparent: string | undefined): Fields =>
  traceparent === undefined ? { payload: asText(payload) } : { payload: asText(payload), traceparent }

export const make: Effect.Effect<StreamQueueShape> = Effect.gen(function*() {
  const state = yield* Ref.make<State>(HashMap.empty())
  // Marked after an append completes and unmarked after an acknowledgement: a reader of a set sees
  // at least what is still in the stream, which is all that telling a loss needs.
  const sets = yield* Ref.make(HashMap.empty<string, HashSet.HashSet<string>>())
  const changeSet = (tracking: Tracking | undefined, change: (set: HashSet.HashSet<string>, member: string) => HashSet.HashSet<string>) =>
    tracking === undefined || tracking.members.length === 0
      ? Effect.void
      : Ref.update(sets, (bySet) => {
        let set = Option.getOrElse(HashMap.get(bySet, tracking.set), () => HashSet.empty<string>())
        for (const member of tracking.members) set = change(set, member)
        return HashSet.size(set) === 0 ? HashMap.remove(bySet, tracking.set) : HashMap.set(bySet, tracking.set, set)
      })
  const track = (tracking: Tracking | undefined) => changeSet(tracking, HashSet.add)
  const untrack = (tracking: Tracking | undefined) => changeSet(tracking, HashSet.remove)

  const transition = <A>(f: (state: State, now: number) => Step<A>): Effect.Effect<A, QueueError> =>
    Clock.currentTimeMillis.pipe(
      Effect.flatMap((now) =>
        Ref.modify(state, (current): readonly [Result.Result<A, QueueError>, State] => {
          const step = f(current, now)
          return Result.isSuccess(step) ? [Result.succeed(step.success[0]), step.success[1]] : [Result.fail(step.failure), current]
        })
      ),
      Effect.flatMap(Effect.fromResult)
    )

  // Appends are all in this process: a reader waits for the next one, never polls.
  const { awaitNonEmpty, notify } = yield* Wakeups.make(Number.POSITIVE_INFINITY)

  const publish: StreamQueueShape["publish"] = (stream, payloads, options) =>
    Effect.gen(function*() {
      const maxLen = options?.maxLen
      if (maxLen !== undefined) yield* validate.nonNegativeInt("publish", "maxLen", maxLen)
      if (payloads.length === 0) return []
      const ids = yield* transition((current, now): Step<ReadonlyArray<string>> => {
        const appended = append(streamOf(current, stream), payloads.map((payload) => fieldsOf(payload, options?.traceparent)), now, maxLen)
        return Result.succeed([appended.ids.map(StreamId.format), HashMap.set(current, stream, appended.stream)] as const)
      })
      yield* track(options?.track)
      yield* notify(stream)
      return ids
    })

  const ensureGroup: StreamQueueShape["ensureGroup"] = (stream, group) =>
    transition((current) => {
      const s = streamOf(current, stream)
      return HashMap.has(s.groups, group)
        ? Result.succeed([false, current] as const)
        : Result.succeed([true, withGroup(current, stream, s, group, { lastDelivered: StreamId.zero, pending: emptyPending })] as const)
    })

  const readNew = (stream: string, group: string, consumer: string, count: number) =>
    transition((current, now): Step<ReadonlyArray<Delivery>> =>
      Result.map(groupOf("read", current, stream, group), ([s, g]) => {
        const fresh = take(Ids.greaterThan(s.entries, g.lastDelivered), count)
        const last = fresh[fresh.length - 1]
        if (last === undefined) return [[], current] as const
        let pending = g.pending
        for (const [id] of fresh) pending = Ids.set(pending, id, { consumer, deliveries: 1, deliveredAt: now })
        const deliveries = fresh.map(([id, fields]) => deliveryOf(id, fields, 1))
        return [deliveries, withGroup(current, stream, s, group, { lastDelivered: last[0], pending })] as const
      })
    )

  const read: StreamQueueShape["read"] = (stream, group, consumer, options) =>
    Effect.andThen(
      validate.readOptions("read", options),
      awaitNonEmpty(stream, options.blockMs, readNew(stream, group, consumer, options.count))
    )

  const ack: StreamQueueShape["ack"] = (stream, group, ids, options) =>
    transition((current) =>
      Result.map(parseIds("ack", ids), (parsed) => {
        const s = HashMap.get(current, stream)
        const g = Option.flatMap(s, (s) => HashMap.get(s.groups, group))
        // Like XACK: acking in a missing stream or group is a no-op.
        if (Option.isNone(s) || Option.isNone(g)) return [undefined, current] as const
        const entries = options?.deleteEntries === true ? withoutEntries(s.value, parsed) : s.value
        return [undefined, withGroup(current, stream, entries, group, ackIn(g.value, parsed))] as const
      })
    ).pipe(Effect.tap(() => untrack(options?.untrack)))

  const claimStale: StreamQueueShape["claimStale"] = (stream, group, consumer, options) =>
    Effect.andThen(
      Effect.andThen(
        validate.nonNegativeInt("claimStale", "minIdleMs", options.minIdleMs),
        validate.positiveInt("claimStale", "count", options.count)
      ),
      transition((current, now): Step<ReadonlyArray<Delivery>> =>
        Result.map(groupOf("claimStale", current, stream, group), ([s, g]) => {
          const claimed: Array<Delivery> = []
          let pending = g.pending
          for (const [id, entry] of Ids.entries(g.pending)) {
            if (claimed.length >= options.count) break
            if (now - entry.deliveredAt < options.minIdleMs) continue
            const fields = Ids.get(s.entries, id)
            if (fields === undefined) {
              // Trimmed away while pending: XAUTOCLAIM drops it from the PEL too.
              pending = Ids.remove(pending, id)
              continue
            }
            const deliveries = entry.deliveries + 1
            pending = Ids.set(pending, id, { consumer, deliveries, deliveredAt: now })
            claimed.push(deliveryOf(id, fields, deliveries))
          }
          return [claimed, withGroup(current, stream, s, group, { ...g, pending })] as const
        })
      )
    )

  const uncountDelivery: StreamQueueShape["uncountDelivery"] = (stream, group, consumer, delivery) =>
    transition((current, now): Step<void> =>
      Result.flatMap(parseId("uncountDelivery", delivery.id), (id) =>
        Result.map(groupOf("uncountDelivery", current, stream, group), ([s, g]) => {
          if (Ids.get(g.pending, id) === undefined) return [undefined, current] as const
          const pending = Ids.set(g.pending, id, { consumer, deliveries: Math.max(0, delivery.deliveries - 1), deliveredAt: now })
          return [undefined, withGroup(current, stream, s, group, { ...g, pending })] as const
        }))
    )

  const deadLetter: StreamQueueShape["deadLetter"] = (stream, group, delivery, reason, options) =>
    Effect.andThen(validate.optionalNonNegativeInt("deadLetter", "keepDead", options?.keepDead), transition((current, now) =>
      Result.map(parseId("deadLetter", delivery.id), (id) => {
        const dead = deadStream(stream)
        const fields: Fields = {
          payload: delivery.payload,
          reason,
          deliveries: String(delivery.deliveries),
          sourceId: delivery.id
        }
        const appended = append(streamOf(current, dead), [fields], now, options?.keepDead)
        let next = HashMap.set(current, dead, appended.stream)
        const s = HashMap.get(next, stream)
        const g = Option.flatMap(s, (s) => HashMap.get(s.groups, group))
        if (Option.isSome(s) && Option.isSome(g)) {
          const entries = options?.deleteEntries === true ? withoutEntries(s.value, [id]) : s.value
          next = withGroup(next, stream, entries, group, ackIn(g.value, [id]))
        }
        return [undefined, next] as const
      })
    )).pipe(Effect.tap(() => untrack(options?.untrack)), Effect.tap(() => notify(deadStream(stream))))

  const entriesAfter = (stream: string, after: StreamId.StreamId, count: number) =>
    Effect.map(Ref.get(state), (current): ReadonlyArray<StreamEntry> =>
      take(Ids.greaterThan(streamOf(current, stream).entries, after), count).map(([id, fields]) => ({
        id: StreamId.format(id),
        payload: payloadOf(fields)
      })))

  const readAfter: StreamQueueShape["readAfter"] = (stream, afterId, options) =>
    Effect.gen(function*() {
      yield* validate.readOptions("readAfter", options)
      const after = afterId === "$"
        ? streamOf(yield* Ref.get(state), stream).lastId
        : yield* Effect.fromResult(parseId("readAfter", afterId))
      return yield* awaitNonEmpty(stream, options.blockMs, entriesAfter(stream, after, options.count))
    })

  const readDead: StreamQueueShape["readDead"] = (stream, options) =>
    Effect.andThen(
      validate.positiveInt("readDead", "count", options.count),
      Effect.map(Ref.get(state), (current): ReadonlyArray<DeadLetter> =>
        take(Ids.entries(streamOf(current, deadStream(stream)).entries), options.count).map(([id, fields]) => ({
          id: StreamId.format(id),
          payload: payloadOf(fields),
          reason: fields["reason"] ?? "",
          deliveries: Number(fields["deliveries"] ?? "0"),
          sourceId: fields["sourceId"] ?? ""
        })))
    )

  return StreamQueue.of({
    kind: "memory",
    processLocal: true,
    publish,
    ensureGroup,
    read,
    ack,
    claimStale,
    uncountDelivery,
    deadLetter,
    readAfter,
    lastId: (stream) => Effect.map(Ref.get(state), (current) => StreamId.format(streamOf(current, stream).lastId)),
    readDead,
    tracked: (set) => Effect.map(Ref.get(sets), (bySet) => Option.match(HashMap.get(bySet, set), { onNone: () => [], onSome: (members) => Array.from(members) })),
    length: (stream) => Effect.map(Ref.get(state), (current) => Ids.size(streamOf(current, stream).entries)),
    groupStats: (stream, group) =>
      Effect.flatMap(Ref.get(state), (current) => Effect.map(Clock.currentTimeMillis, (now) => groupStatsOf(streamOf(current, stream), group, now))),
    durability: Effect.succeed({
      durable: false,
      description: "in-process queue: entries live in this process's memory; SIGTERM drains them before exiting, a crash loses those not yet persisted (their loads end FAILED)"
    }),
    ping: Effect.void
  })
})

export const layer: Layer.Layer<StreamQueue> = Layer.effect(StreamQueue, make)
