import {
  buildSnapshot,
  capacityLimits,
  type CapacityUse,

  decodeNetwork,
  demoNetwork,
  ledgerFromUses,
  type NetworkDocument,
  type NetworkInvalid,
  resourceKey,
  type Snapshot,
  UnknownResource
} from "@retail/capacity"
import { CapacityRepository, type LimitedUse, StoreError } from "@retail/store"
import { Clock, Effect, Either, Option } from "effect"

interface State {
  readonly version: number
  readonly document: NetworkDocument
  /** Units used per resource and date (absolute values as the database last reported them). */
  readonly usage: ReadonlyMap<string, CapacityUse>
  readonly snapshot: Snapshot
}

const useKey = (use: CapacityUse) => `${resourceKey(use.resource)}|${use.date}`

const DAY_MS = 86_400_000
/** Usage of days before yesterday (UTC) cannot affect an evaluation any more. */
const usageFrom = (nowMillis: number) => new Date(nowMillis - DAY_MS).toISOString().slice(0, 10)

const stateOf = (version: number, document: NetworkDocument, usage: ReadonlyMap<string, CapacityUse>): State => ({
  version,
  document,
  usage,
  snapshot: buildSnapshot(document, ledgerFromUses([...usage.values()]))
})

const corrupt = (error: NetworkInvalid) =>
  new StoreError({ operation: "loadNetwork", message: `the stored network is invalid: ${error.message}` })

/**
 * The current network and its evaluation snapshot. Readers take the snapshot from one cell
 * (`peek`, synchronous) and never wait; writers (network replacement, consumption, release) go
 * through the database, then publish a whole new state one at a time.
 */
export class CapacityNetwork extends Effect.Service<CapacityNetwork>()("@retail/capacity/CapacityNetwork", {
  scoped: Effect.gen(function*() {
    const repository = yield* CapacityRepository
    yield* repository.initNetwork(demoNetwork)
    const stored = yield* Effect.flatMap(repository.loadNetwork, Option.match({
      onNone: () => Effect.fail(new StoreError({ operation: "loadNetwork", message: "no network stored" })),
      onSome: Effect.succeed
    }))
    const document = yield* Either.match(decodeNetwork(stored.document), { onLeft: (e) => Effect.fail(corrupt(e)), onRight: Effect.succeed })
    const uses = yield* repository.loadUsage(usageFrom(yield* Clock.currentTimeMillis))
    let state = stateOf(stored.version, document, new Map(uses.map((use) => [useKey(use), use])))
    const writes = yield* Effect.makeSemaphore(1)

    const publish = (update: (current: State) => State) => writes.withPermits(1)(Effect.sync(() => {
      state = update(state)
    }))

    const patchUsage = (changed: ReadonlyArray<CapacityUse>) =>
      publish((current) => {
        const usage = new Map(current.usage)
        for (const use of changed) usage.set(useKey(use), use)
        return stateOf(current.version, current.document, usage)
      })

    const peek = (): Snapshot => state.snapshot
    const current = Effect.sync(() => state)

    /** Validated with decodeNetwork; stored, then evaluated from at once. */
    const replace = (input: unknown) =>
      Effect.flatMap(decodeNetwork(input), (next) =>
        writes.withPermits(1)(Effect.gen(function*() {
          const version = yield* repository.saveNetwork(input)
          state = stateOf(version, next, state.usage)
          return version
        })))

    /** Totals come from the current network; an unknown resource is refused before the database is touched. */
    const consume = (orderId: string, uses: ReadonlyArray<CapacityUse>) =>
      Effect.gen(function*() {
        const limits = capacityLimits(peek())
        const limited: Array<LimitedUse> = []
        for (const use of uses) {
          const total = limits(use.resource, use.date)
          if (total === undefined) return yield* Effect.fail(new UnknownResource({ resource: use.resource }))
          limited.push({ use, total })
        }
        const outcome = yield* repository.consume(orderId, limited)
        if (outcome._tag === "Applied") yield* patchUsage(outcome.usage)
        return outcome
      })

    const release = (orderId: string) =>
      Effect.tap(repository.release(orderId), Option.match({ onNone: () => Effect.void, onSome: patchUsage }))

    return {
      peek,
      current,
      replace,
      consume,
      release,
      nodeLedger: repository.nodeLedger
    } as const
  })
}) {}
