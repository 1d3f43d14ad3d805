/**
 * An in-process StreamQueue with the semantics of Redis Streams, standing in
 * for Redis when none is configured. All state lives in one Ref of persistent
 * collections, so every operation is a single atomic transition.
 */
import { Clock, Effect, Either, HashMap, HashSet, Layer, Option, RedBlackTree, Ref } from "effect"
import * as validate from "./internal/validate.ts"
import * as Wakeups from "./internal/Wakeups.ts"
import * as StreamId from "./internal/StreamId.ts"
import type { DeadLetter, Delivery, Payload, StreamEntry, StreamQueueShape, Tracking } from "./StreamQueue.ts"
import { deadStream, QueueError, StreamQueue } from "./StreamQueue.ts"

type Fields = Readonly<Record<string, string>>

interface Pending {
  readonly consumer: string
  readonly deliveries: number
  readonly deliveredAt: number
}

interface Group {
  readonly lastDelivered: StreamId.StreamId
  readonly pending: RedBlackTree.RedBlackTree<StreamId.StreamId, Pending>
}

interface Stream {
  readonly entries: RedBlackTree.RedBlackTree<StreamId.StreamId, Fields>
  readonly lastId: StreamId.StreamId
  readonly groups: HashMap.HashMap<string, Group>
}

type State = HashMap.HashMap<string, Stream>

type Step<A> = Either.Either<readonly [A, State], QueueError>

const emptyStream: Stream = {
  entries: RedBlackTree.empty(StreamId.order),
  lastId: StreamId.zero,
  groups: HashMap.empty()
}

const emptyPending = RedBlackTree.empty<StreamId.StreamId, Pending>(StreamId.order)

const streamOf = (state: State, stream: string): Stream => Option.getOrElse(HashMap.get(state, stream), () => emptyStream)

// Keys are unique ids, but the tree is a multimap: replacing takes a removal first.
const put = <V>(tree: RedBlackTree.RedBlackTree<StreamId.StreamId, V>, id: StreamId.StreamId, value: V) =>
  RedBlackTree.insert(RedBlackTree.removeFirst(tree, id), id, value)

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
    entries = RedBlackTree.insert(entries, lastId, f)
  }
  if (maxLen !== undefined) {
    while (RedBlackTree.size(entries) > maxLen) {
      const first = RedBlackTree.first(entries)
      if (Option.isNone(first)) break
      entries = RedBlackTree.removeFirst(entries, first.value[0])
    }
  }
  return { ids, stream: { ...stream, entries, lastId } satisfies Stream }
}

const parseId = (operation: string, id: string): Either.Either<StreamId.StreamId, QueueError> =>
  Either.fromOption(
    StreamId.parse(id),
    () => new QueueError({ operation, message: `Invalid stream ID specified: ${id}` })
  )

const parseIds = (operation: string, ids: ReadonlyArray<string>) => Either.all(ids.map((id) => parseId(operation, id)))

const groupOf = (operation: string, state: State, stream: string, group: string): Either.Either<readonly [Stream, Group], QueueError> => {
  const s = HashMap.get(state, stream)
  const g = Option.flatMap(s, (s) => HashMap.get(s.groups, group))
  return Option.isSome(s) && Option.isSome(g)
    ? Either.right([s.value, g.value] as const)
    : Either.left(new QueueError({ operation, message: `NOGROUP No such key '${stream}' or consumer group '${group}'` }))
}

const ackIn = (group: Group, ids: ReadonlyArray<StreamId.StreamId>): Group => {
  let pending = group.pending
  for (const id of ids) pending = RedBlackTree.removeFirst(pending, id)
  return { ...group, pending }
}

const withoutEntries = (stream: Stream, ids: ReadonlyArray<StreamId.StreamId>): Stream => {
  let entries = stream.entries
  for (const id of ids) entries = RedBlackTree.removeFirst(entries, id)
  return { ...stream, entries }
}

const withGroup = (state: State, name: string, stream: Stream, groupName: string, group: Group): State =>
  HashMap.set(state, name, { ...stream, groups: HashMap.set(stream.groups, groupName, group) })

const payloadOf = (fields: Fields): string => fields["payload"] ?? ""

const utf8 = new TextDecoder()
const asText = (payload: Payload): string => (typeof payload === "string" ? payload : utf8.decode(payload))

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
        Ref.modify(state, (current): readonly [Either.Either<A, QueueError>, State] => {
          const step = f(current, now)
          return Either.isRight(step) ? [Either.right(step.right[0]), step.right[1]] : [Either.left(step.left), current]
        })
      ),
      Effect.flatMap((result) => result)
    )

  // Appends are all in this process: a reader waits for the next one, never polls.
  const { awaitNonEmpty, notify } = yield* Wakeups.make(Number.POSITIVE_INFINITY)

  const publish: StreamQueueShape["publish"] = (stream, payloads, options) =>
    Effect.gen(function*() {
      const maxLen = options?.maxLen
      if (maxLen !== undefined) yield* validate.nonNegativeInt("publish", "maxLen", maxLen)
      if (payloads.length === 0) return []
      const ids = yield* transition((current, now): Step<ReadonlyArray<string>> => {
        const appended = append(streamOf(current, stream), payloads.map((payload) => ({ payload: asText(payload) })), now, maxLen)
        return Either.right([appended.ids.map(StreamId.format), HashMap.set(current, stream, appended.stream)] as const)
      })
      yield* track(options?.track)
      yield* notify(stream)
      return ids
    })

  const ensureGroup: StreamQueueShape["ensureGroup"] = (stream, group) =>
    transition((current) => {
      const s = streamOf(current, stream)
      return HashMap.has(s.groups, group)
        ? Either.right([false, current] as const)
        : Either.right([true, withGroup(current, stream, s, group, { lastDelivered: StreamId.zero, pending: emptyPending })] as const)
    })

  const readNew = (stream: string, group: string, consumer: string, count: number) =>
    transition((current, now): Step<ReadonlyArray<Delivery>> =>
      Either.map(groupOf("read", current, stream, group), ([s, g]) => {
        const fresh = take(RedBlackTree.greaterThan(s.entries, g.lastDelivered), count)
        const last = fresh[fresh.length - 1]
        if (last === undefined) return [[], current] as const
        let pending = g.pending
        for (const [id] of fresh) pending = RedBlackTree.insert(pending, id, { consumer, deliveries: 1, deliveredAt: now })
        const deliveries = fresh.map(([id, fields]) => ({ id: StreamId.format(id), payload: payloadOf(fields), deliveries: 1 }))
        return [deliveries, withGroup(current, stream, s, group, { lastDelivered: last[0], pending })] as const
      })
    )

  const read: StreamQueueShape["read"] = (stream, group, consumer, options) =>
    Effect.zipRight(
      validate.readOptions("read", options),
      awaitNonEmpty(stream, options.blockMs, readNew(stream, group, consumer, options.count))
    )

  const ack: StreamQueueShape["ack"] = (stream, group, ids, options) =>
    transition((current) =>
      Either.map(parseIds("ack", ids), (parsed) => {
        const s = HashMap.get(current, stream)
        const g = Option.flatMap(s, (s) => HashMap.get(s.groups, group))
        // Like XACK: acking in a missing stream or group is a no-op.
        if (Option.isNone(s) || Option.isNone(g)) return [undefined, current] as const
        const entries = options?.deleteEntries === true ? withoutEntries(s.value, parsed) : s.value
        return [undefined, withGroup(current, stream, entries, group, ackIn(g.value, parsed))] as const
      })
    ).pipe(Effect.zipLeft(untrack(options?.untrack)))

  const claimStale: StreamQueueShape["claimStale"] = (stream, group, consumer, options) =>
    Effect.zipRight(
      Effect.zipRight(
        validate.nonNegativeInt("claimStale", "minIdleMs", options.minIdleMs),
        validate.positiveInt("claimStale", "count", options.count)
      ),
      transition((current, now): Step<ReadonlyArray<Delivery>> =>
        Either.map(groupOf("claimStale", current, stream, group), ([s, g]) => {
          const claimed: Array<Delivery> = []
          let pending = g.pending
          for (const [id, entry] of g.pending) {
            if (claimed.length >= options.count) break
            if (now - entry.deliveredAt < options.minIdleMs) continue
            const fields = RedBlackTree.findFirst(s.entries, id)
            if (Option.isNone(fields)) {
              // Trimmed away while pending: XAUTOCLAIM drops it from the PEL too.
              pending = RedBlackTree.removeFirst(pending, id)
              continue
            }
            const deliveries = entry.deliveries + 1
            pending = put(pending, id, { consumer, deliveries, deliveredAt: now })
            claimed.push({ id: StreamId.format(id), payload: payloadOf(fields.value), deliveries })
          }
          return [claimed, withGroup(current, stream, s, group, { ...g, pending })] as const
        })
      )
    )

  const uncountDelivery: StreamQueueShape["uncountDelivery"] = (stream, group, consumer, delivery) =>
    transition((current, now): Step<void> =>
      Either.flatMap(parseId("uncountDelivery", delivery.id), (id) =>
        Either.map(groupOf("uncountDelivery", current, stream, group), ([s, g]) => {
          const entry = RedBlackTree.findFirst(g.pending, id)
          if (Option.isNone(entry)) return [undefined, current] as const
          const pending = put(g.pending, id, { consumer, deliveries: Math.max(0, delivery.deliveries - 1), deliveredAt: now })
          return [undefined, withGroup(current, stream, s, group, { ...g, pending })] as const
        }))
    )

  const deadLetter: StreamQueueShape["deadLetter"] = (stream, group, delivery, reason, options) =>
    transition((current, now) =>
      Either.map(parseId("deadLetter", delivery.id), (id) => {
        const dead = deadStream(stream)
        const fields: Fields = {
          payload: delivery.payload,
          reason,
          deliveries: String(delivery.deliveries),
          sourceId: delivery.id
        }
        const appended = append(streamOf(current, dead), [fields], now, undefined)
        let next = HashMap.set(current, dead, appended.stream)
        const s = HashMap.get(next, stream)
        const g = Option.flatMap(s, (s) => HashMap.get(s.groups, group))
        if (Option.isSome(s) && Option.isSome(g)) {
          const entries = options?.deleteEntries === true ? withoutEntries(s.value, [id]) : s.value
          next = withGroup(next, stream, entries, group, ackIn(g.value, [id]))
        }
        return [undefined, next] as const
      })
    ).pipe(Effect.zipLeft(untrack(options?.untrack)), Effect.zipLeft(notify(deadStream(stream))))

  const entriesAfter = (stream: string, after: StreamId.StreamId, count: number) =>
    Effect.map(Ref.get(state), (current): ReadonlyArray<StreamEntry> =>
      take(RedBlackTree.greaterThan(streamOf(current, stream).entries, after), count).map(([id, fields]) => ({
        id: StreamId.format(id),
        payload: payloadOf(fields)
      })))

  const readAfter: StreamQueueShape["readAfter"] = (stream, afterId, options) =>
    Effect.gen(function*() {
      yield* validate.readOptions("readAfter", options)
      const after = afterId === "$"
        ? streamOf(yield* Ref.get(state), stream).lastId
        : yield* parseId("readAfter", afterId)
      return yield* awaitNonEmpty(stream, options.blockMs, entriesAfter(stream, after, options.count))
    })

  const readDead: StreamQueueShape["readDead"] = (stream, options) =>
    Effect.zipRight(
      validate.positiveInt("readDead", "count", options.count),
      Effect.map(Ref.get(state), (current): ReadonlyArray<DeadLetter> =>
        take(streamOf(current, deadStream(stream)).entries, options.count).map(([id, fields]) => ({
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
    length: (stream) => Effect.map(Ref.get(state), (current) => RedBlackTree.size(streamOf(current, stream).entries)),
    durability: Effect.succeed({
      durable: false,
      description: "in-process queue: entries live in this process's memory; SIGTERM drains them before exiting, a crash loses those not yet persisted (their loads end FAILED)"
    }),
    ping: Effect.void
  })
})

export const layer: Layer.Layer<StreamQueue> = Layer.effect(StreamQueue, make)
