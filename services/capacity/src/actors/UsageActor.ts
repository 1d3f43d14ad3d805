import { type Day, parseDay, resourceKey, type UsageBoard } from "@retail/capacity"
import { CapacityRepository, type UsageState } from "@retail/store"
import { Clock, Deferred, Effect, Fiber, Option, Queue, type Scope } from "effect"
import { restarts } from "../Restarts.ts"
import { ActorFaults, noActorFaults } from "./ActorFaults.ts"
import { type ActorId, actorKey, storedKindsOf } from "./ActorIds.ts"

export type ActorMessage =
  /** Absolute usage values (as Postgres returned them after a commit); older revisions are ignored. */
  | { readonly _tag: "Apply"; readonly states: ReadonlyArray<UsageState>; readonly done: Deferred.Deferred<void> | undefined }
  /** Replace everything from Postgres (network replaced, or a replica resynchronising). */
  | { readonly _tag: "Reload"; readonly done: Deferred.Deferred<void> | undefined }

export interface UsageActor {
  readonly id: ActorId
  readonly key: string
  /** Completes after the first load from Postgres. */
  readonly ready: Deferred.Deferred<void>
  readonly send: (message: ActorMessage) => Effect.Effect<void>
  /**
   * Applies absolute values at once, synchronously, when the actor is idle: not loading, not
   * handling a message, nothing in its mailbox (and no fault seam to run). True when applied (the
   * change is confirmed); false: send it an Apply instead.
   */
  readonly applyNow: (states: ReadonlyArray<UsageState>) => boolean
  /** Sends a message and waits until the actor has handled it. */
  readonly ask: (message: (done: Deferred.Deferred<void>) => ActorMessage) => Effect.Effect<void>
  readonly stop: Effect.Effect<void>
}

const EMPTY: ReadonlyMap<Day, number> = new Map()

/** Restarts quickly at first, then at most every 2 s while it keeps failing; calm for a minute resets it. */
const actorRestarts = restarts("20 millis")

/**
 * The actor of one node, route or zone: a supervised fiber that alone writes the usage cells of the
 * resources it owns, taking one message at a time from its mailbox. A crash is logged, and the
 * restarted actor reloads its usage from Postgres before it takes the next message; a message it
 * was handling when it crashed is answered after that reload (which includes the message's change,
 * since changes are sent only after their commit).
 */
export const startActor = (
  id: ActorId,
  board: UsageBoard,
  usageFrom: (nowMillis: number) => string,
  scope: Scope.Scope
): Effect.Effect<UsageActor, never, CapacityRepository> =>
  Effect.gen(function*() {
    const repository = yield* CapacityRepository
    const faults = yield* ActorFaults
    const key = actorKey(id)
    const mailbox = yield* Queue.unbounded<ActorMessage>()
    const ready = yield* Deferred.make<void>()
    /** Revision per `resourceKey|date` last written into a cell. */
    const revisions = new Map<string, number>()
    /** Resource keys whose cells this actor has written. */
    const owned = new Set<string>()
    let inFlight: Deferred.Deferred<void> | undefined
    /** Loading, or handling a message; and the messages sent and not yet taken. */
    let busy = true
    let queued = 0
    // With a fault seam (tests), every change goes through the mailbox, where the seam runs.
    const seamed = faults !== noActorFaults

    const write = (states: ReadonlyArray<UsageState>, replaceAll: boolean) => {
      const byResource = new Map<string, Array<UsageState>>()
      for (const state of states) {
        const resource = resourceKey(state.resource)
        const list = byResource.get(resource)
        if (list === undefined) byResource.set(resource, [state])
        else list.push(state)
      }
      if (replaceAll) {
        revisions.clear()
        for (const resource of owned) if (!byResource.has(resource)) board.cellByKey(resource).current = EMPTY
      }
      for (const [resource, list] of byResource) {
        const cell = board.cellByKey(resource)
        let next: Map<Day, number> | undefined = replaceAll ? new Map() : undefined
        for (const state of list) {
          const day = parseDay(state.date)
          if (Option.isNone(day)) continue
          const revisionKey = `${resource}|${state.date}`
          const known = revisions.get(revisionKey)
          if (known !== undefined && known >= state.revision) continue
          next ??= new Map(cell.current)
          next.set(day.value, state.used)
          revisions.set(revisionKey, state.revision)
        }
        // A new map, never an edit: evaluations holding the old one keep a consistent view.
        if (next !== undefined) cell.current = next
        owned.add(resource)
      }
    }

    const reload = Effect.gen(function*() {
      yield* faults.before(key, "reload")
      const now = yield* Clock.currentTimeMillis
      write(yield* repository.loadUsageOf(storedKindsOf(id), id.code, usageFrom(now)), true)
    })

    const handle = (message: ActorMessage) =>
      Effect.gen(function*() {
        queued--
        busy = true
        inFlight = message.done
        yield* faults.before(key, "message")
        if (message._tag === "Apply") write(message.states, false)
        else yield* reload
        inFlight = undefined
        busy = false
        if (message.done !== undefined) yield* Deferred.succeed(message.done, undefined)
      })

    const life = Effect.gen(function*() {
      busy = true
      yield* reload
      yield* Deferred.succeed(ready, undefined)
      if (inFlight !== undefined) {
        yield* Deferred.succeed(inFlight, undefined)
        inFlight = undefined
      }
      busy = false
      return yield* Effect.forever(Effect.flatMap(Queue.take(mailbox), handle))
    })

    const fiber = yield* life.pipe(
      Effect.catchCause((cause) =>
        Effect.logError(`capacity actor ${key} failed; restarting it from Postgres`, cause)
      ),
      Effect.repeat(actorRestarts),
      Effect.annotateLogs("actor", key),
      Effect.forkIn(scope)
    )

    // A stopped actor (its node left the network) has nothing left to show: answer at once.
    const send = (message: ActorMessage) =>
      Effect.suspend(() => {
        if (mailbox.state._tag === "Done") return message.done === undefined ? Effect.void : Deferred.succeed(message.done, undefined)
        queued++
        return Queue.offer(mailbox, message)
      })
    // One thread: while the actor waits on an empty mailbox, nothing else can write its cells
    // meanwhile, so the write is the actor's as if it had taken the message (without a fiber's
    // wake-up, a deferred and its confirmation: ~100 µs of an order's CPU; docs/capacity.md).
    const applyNow = (states: ReadonlyArray<UsageState>): boolean => {
      if (busy || queued > 0 || seamed || mailbox.state._tag === "Done") return false
      write(states, false)
      return true
    }
    return {
      id,
      key,
      ready,
      send,
      applyNow,
      ask: (message) =>
        Effect.flatMap(Deferred.make<void>(), (done) => Effect.andThen(send(message(done)), Deferred.await(done))),
      stop: Effect.andThen(Fiber.interrupt(fiber), Queue.shutdown(mailbox))
    } satisfies UsageActor
  })
