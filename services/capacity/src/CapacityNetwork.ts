import {
  buildSnapshotOn,
  capacityLimits,
  type CapacityUse,
  type ChangeRow,
  decodeNetwork,
  defaultSnapshotOptions,
  demoNetwork,
  differencesFromStored,
  type DispatchOrder,
  NetworkChangeBoard,
  type NetworkChangeRows,
  type NetworkDocument,
  type NetworkInvalid,
  OrderConflict,
  orderContentOf,
  type Snapshot,
  UnknownResource,
  UsageBoard,
  usesOfOrder
} from "@retail/capacity"
import { CapacityRepository, type LimitedUse, StoreError, type UsageState } from "@retail/store"
import { Clock, Context, Deferred, Effect, Layer, Option, Result, Semaphore } from "effect"
import { ActorFaults } from "./actors/ActorFaults.ts"
import { actorKey, actorsOf, ownerOf } from "./actors/ActorIds.ts"
import { startActor, type UsageActor } from "./actors/UsageActor.ts"
import { type CapacityEvent, CapacityEvents, statesOfEvent, usageEvent } from "./CapacityEvents.ts"
import { makeOrderGroups } from "./OrderGroups.ts"
import { StockReplica } from "./stock/StockReplica.ts"

interface State {
  readonly version: number
  readonly document: NetworkDocument
  readonly snapshot: Snapshot
}

const DAY_MS = 86_400_000
/** Usage of days before yesterday (UTC) cannot affect an evaluation any more. */
const usageFrom = (nowMillis: number) => new Date(nowMillis - DAY_MS).toISOString().slice(0, 10)

/** Network change rows per event on the stream: about 100 KB of JSON. */
const CHANGES_PER_EVENT = 1_000

/** How long a write waits for the actors to show it before answering anyway (it is committed). */
const APPLY_WAIT = "5 seconds"

const corrupt = (error: NetworkInvalid) =>
  new StoreError({ operation: "loadNetwork", message: `the stored network is invalid: ${error.message}` })

/**
 * The current network and its usage, kept by actors (one per node, route and zone; see
 * actors/UsageActor.ts). Readers take the snapshot from one cell (`peek`, synchronous) and never
 * wait: its `used` maps read the actors' cells. A consumption or release goes through Postgres,
 * then to the actors owning the changed resources, then onto the stream of capacity events for
 * the other processes. Only a network replacement builds a new snapshot.
 */
export class CapacityNetwork extends Context.Service<CapacityNetwork>()("@retail/capacity/CapacityNetwork", {
  make: Effect.gen(function*() {
    const repository = yield* CapacityRepository
    const events = yield* CapacityEvents
    const scope = yield* Effect.scope
    const context = yield* Effect.context<CapacityRepository>()
    const faults = yield* ActorFaults
    // Stock is read through the replica's board, kept across network replacements (stock/StockReplica.ts).
    const stock = yield* StockReplica
    // Taken before anything is loaded: an event committed after the load is after this position.
    const position = yield* events.position

    const board = new UsageBoard()
    // Network changes stand over whichever document is current: kept across replacements, like usage.
    const changes = new NetworkChangeBoard()
    const actors = new Map<string, UsageActor>()
    const writes = yield* Semaphore.make(1)

    // Every message is already in its mailbox: awaiting them one after another costs no extra fibers.
    const waitFor = (dones: ReadonlyArray<Deferred.Deferred<void>>) =>
      Effect.forEach(dones, Deferred.await, { discard: true }).pipe(
        Effect.timeoutOrElse({
          duration: APPLY_WAIT,
          orElse: () => Effect.logWarning(`capacity actors did not confirm a change within ${APPLY_WAIT}`)
        })
      )

    /** The actors of a network: new ones start (loading from Postgres), kept ones reload, dropped ones stop. */
    const adopt = (version: number, document: NetworkDocument) =>
      Effect.gen(function*() {
        const ids = actorsOf(document)
        const wanted = new Set(ids.map(actorKey))
        const loaded: Array<Effect.Effect<void>> = []
        for (const id of ids) {
          const existing = actors.get(actorKey(id))
          if (existing !== undefined) {
            loaded.push(existing.ask((done) => ({ _tag: "Reload", done })))
            continue
          }
          const actor = yield* startActor(id, board, usageFrom, scope).pipe(
            Effect.provide(context),
            Effect.provideService(ActorFaults, faults)
          )
          actors.set(actor.key, actor)
          loaded.push(Deferred.await(actor.ready))
        }
        yield* Effect.all(loaded, { concurrency: "unbounded", discard: true })
        for (const [key, actor] of actors) {
          if (wanted.has(key)) continue
          yield* actor.stop
          actors.delete(key)
        }
        return {
          version,
          document,
          snapshot: buildSnapshotOn(document, board.cellOf, defaultSnapshotOptions, stock.view, changes.cellOf)
        } satisfies State
      })

    const loadStored = Effect.gen(function*() {
      const stored = yield* Effect.flatMap(repository.loadNetwork, Option.match({
        onNone: () => Effect.fail(new StoreError({ operation: "loadNetwork", message: "no network stored" })),
        onSome: Effect.succeed
      }))
      const document = yield* Result.match(decodeNetwork(stored.document), { onFailure: (e) => Effect.fail(corrupt(e)), onSuccess: Effect.succeed })
      return { version: stored.version, document }
    })

    /** The stored changes of dates from yesterday on, taken by sequence (what is held already changes nothing). */
    const loadChanges = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      changes.apply(yield* repository.loadNetworkChanges(usageFrom(now)))
    })

    yield* repository.initNetwork(demoNetwork)
    yield* loadChanges
    const initial = yield* loadStored
    let state: State = yield* adopt(initial.version, initial.document)

    /** Absolute values by revision: applying the same change twice (own write, then its event) changes nothing. */
    const deliver = (usage: ReadonlyArray<UsageState>, wait: boolean) =>
      Effect.gen(function*() {
        const byActor = new Map<string, Array<UsageState>>()
        for (const use of usage) {
          const key = actorKey(ownerOf(use.resource))
          const list = byActor.get(key)
          if (list === undefined) byActor.set(key, [use])
          else list.push(use)
        }
        const dones: Array<Deferred.Deferred<void>> = []
        for (const [key, states] of byActor) {
          const actor = actors.get(key)
          if (actor === undefined || actor.applyNow(states)) continue
          const done = wait ? yield* Deferred.make<void>() : undefined
          if (done !== undefined) dones.push(done)
          yield* actor.send({ _tag: "Apply", states, done })
        }
        if (dones.length > 0) yield* waitFor(dones)
      })

    /** The actors owning these resources reload their usage from Postgres. */
    const reloadOwnersOf = (resources: ReadonlyArray<CapacityUse["resource"]>) =>
      Effect.gen(function*() {
        const dones: Array<Deferred.Deferred<void>> = []
        for (const key of new Set(resources.map((resource) => actorKey(ownerOf(resource))))) {
          const actor = actors.get(key)
          if (actor === undefined) continue
          const done = yield* Deferred.make<void>()
          dones.push(done)
          yield* actor.send({ _tag: "Reload", done })
        }
        yield* waitFor(dones)
      })

    /** A newer network stored by another process: load it and reconfigure the actors. */
    const followNetwork = (version: number) =>
      writes.withPermits(1)(Effect.gen(function*() {
        if (version <= state.version) return
        const stored = yield* loadStored
        if (stored.version > state.version) state = yield* adopt(stored.version, stored.document)
      }))

    const apply = (event: CapacityEvent) => {
      switch (event._tag) {
        case "UsageChanged":
          return deliver(statesOfEvent(event), false)
        case "NetworkChanged":
          return Effect.sync(() => {
            changes.apply(event.rows)
          })
        case "NetworkReplaced":
          return followNetwork(event.version).pipe(
            Effect.catch((error) => Effect.logError(`capacity: network version ${event.version} could not be loaded`, error))
          )
      }
    }

    const resync = Effect.gen(function*() {
      yield* loadChanges
      const stored = yield* loadStored
      yield* writes.withPermits(1)(Effect.gen(function*() {
        state = yield* adopt(stored.version, stored.document)
      }))
    })

    yield* events.follow(position, { apply, resync })

    /**
     * Every usage row from Postgres to the actors, applied by revision: a change whose event never
     * came (its process died between commit and publish, or Redis lost it) shows here; the rest is
     * already known and changes nothing.
     */
    const reconcile = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      yield* deliver(yield* repository.loadUsage(usageFrom(now)), true)
      // Network changes likewise (a few rows per target and date: the whole table from yesterday on).
      yield* loadChanges
    })

    const peek = (): Snapshot => state.snapshot
    const current = Effect.sync(() => state)

    /** Validated with decodeNetwork; stored, then evaluated from once every actor is configured. */
    const replace = (input: unknown) =>
      Effect.flatMap(Effect.fromResult(decodeNetwork(input)), (next) =>
        writes.withPermits(1)(Effect.gen(function*() {
          const version = yield* repository.saveNetwork(input)
          // The document's stock rows are set as it states them; rows it does not list stay (docs/capacity.md).
          yield* stock.setDocumentStock(next.stock)
          state = yield* adopt(version, next)
          yield* events.publish({ _tag: "NetworkReplaced", version })
          return version
        })))

    /**
     * A batch of network changes (rows of `rowsOfBatch`): stored, those set taken here (the
     * snapshot reads them through its change cells: nothing is rebuilt), then published. A row
     * whose sequence is not above the stored one is left alone, so a replay changes nothing.
     */
    const applyChanges = (batch: NetworkChangeRows) =>
      Effect.gen(function*() {
        const applied: ReadonlyArray<ChangeRow> = batch.rows.length === 0 ? [] : yield* repository.applyNetworkChanges(batch.sequence, batch.rows)
        changes.apply(applied)
        for (let from = 0; from < applied.length; from += CHANGES_PER_EVENT) {
          yield* events.publish({ _tag: "NetworkChanged", rows: applied.slice(from, from + CHANGES_PER_EVENT) })
        }
        return { sequence: batch.sequence, received: batch.received, rows: batch.rows.length, applied: applied.length, stale: batch.rows.length - applied.length }
      })

    // Orders placed together share a statement; each is shown to the actors and published before it is answered.
    const takeInGroup = yield* makeOrderGroups(repository, {
      afterCommit: (applied) =>
        Effect.andThen(
          deliver(applied.flatMap((order) => order.usage), true),
          events.publishAll(applied.map((order) => usageEvent("CONSUMED", order.orderId, order.usage)))
        ),
      // Their usage is read again by the actors owning it; other processes see it at their next reconciliation.
      inDoubt: (orders) => reloadOwnersOf(orders.flatMap((order) => order.uses.map(({ use }) => use.resource)))
    })

    /** Totals come from the current network; an unknown resource is refused before the database is touched. */
    const consumeUses = (orderId: string, uses: ReadonlyArray<CapacityUse>, request?: unknown) =>
      Effect.gen(function*() {
        const limits = capacityLimits(peek())
        const limited: Array<LimitedUse> = []
        for (const use of uses) {
          const total = limits(use.resource, use.date)
          if (total === undefined) return yield* Effect.fail(new UnknownResource({ resource: use.resource }))
          limited.push({ use, total })
        }
        return yield* takeInGroup({ orderId, uses: limited, request })
      })

    /**
     * An order in the terms of an answer (dispatch code, route, dates from the trace, units). Its
     * content is stored with it: the same order id with other content is an OrderConflict.
     */
    const consume = (order: DispatchOrder) => {
      const content = orderContentOf(order)
      return Effect.flatMap(Effect.fromResult(usesOfOrder(peek(), order)), (uses) => consumeUses(order.orderId, uses, content)).pipe(
        Effect.catchTag("OrderIdTaken", (taken) =>
          Effect.fail(new OrderConflict({ orderId: taken.orderId, differences: differencesFromStored(taken.applied, content) })))
      )
    }

    const release = (orderId: string) =>
      Effect.tap(repository.release(orderId), Option.match({
        onNone: () => Effect.void,
        onSome: (usage: ReadonlyArray<UsageState>) =>
          Effect.andThen(deliver(usage, true), events.publish(usageEvent("RELEASED", orderId, usage)))
      }))

    return {
      peek,
      current,
      replace,
      applyChanges,
      /** The network changes this process holds (GET /v1/network/changes). */
      changes: Effect.sync(() => changes.rows()),
      consume,
      consumeUses,
      release,
      reconcile,
      nodeLedger: repository.nodeLedger,
      /** For tests and diagnostics: the actors running now, by key (`node:CODE`, `route:ID`, `zone:CODE`). */
      actorKeys: Effect.sync(() => [...actors.keys()])
    } as const
  })
}) {
  /** Needs CapacityRepository, CapacityEvents and StockReplica; the actors live as long as the layer. */
  static readonly layer = Layer.effect(this, this.make)
}
