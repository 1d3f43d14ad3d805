import { CapacityMetrics } from "@retail/metrics"
import { CapacityRetention, type StoreError } from "@retail/store"
import { Cause, Clock, Context, Duration, Effect, Layer, Schedule } from "effect"
import { CapacityConfig } from "./CapacityConfig.ts"

const DAY_MS = 86_400_000
/**
 * Per statement, so that each transaction stays short however long the past: orders (each with a
 * few ledger rows), and usage rows or network changes.
 */
const ORDERS_PER_STATEMENT = 1_000
const ROWS_PER_STATEMENT = 5_000
/** Between statements: a first sweep after an upgrade deletes months of history, and must not crowd out the orders. */
const PAUSE = Duration.millis(50)
/** Days pass by the day, so an hour is prompt. */
const SWEEP_EVERY = Duration.hours(1)

/**
 * The first day kept: CAPACITY_RETENTION_DAYS before yesterday (UTC), the oldest day a replica
 * reads (CapacityNetwork's usageFrom), so nothing the engine reads is ever forgotten.
 */
export const keptFrom = (nowMillis: number, retentionDays: number): string =>
  new Date(nowMillis - (retentionDays + 1) * DAY_MS).toISOString().slice(0, 10)

export interface Forgotten {
  readonly orders: number
  readonly usage: number
  readonly networkChanges: number
}

/**
 * Forgets the capacity store's past (CapacityRetention in packages/store): orders none of whose
 * uses falls on a day kept, with their ledger; usage rows and network changes of days before it.
 * At start and then hourly, in every process; sweeps racing over the same rows skip each other's.
 * A failed sweep is logged and tried again at the next: what it missed is only kept longer.
 */
export class CapacityHistorySweep extends Context.Service<CapacityHistorySweep>()("@retail/capacity/CapacityHistorySweep", {
  make: Effect.gen(function*() {
    const retention = yield* CapacityRetention
    const { retentionDays } = yield* CapacityConfig

    /** Every row due, a statement at a time, each counted as it commits; how many. */
    const drain = (kind: string, forget: (before: string, limit: number) => Effect.Effect<number, StoreError>, before: string, limit: number) =>
      Effect.gen(function*() {
        let forgotten = 0
        for (;;) {
          const now = yield* forget(before, limit)
          if (now === 0) return forgotten
          forgotten += now
          CapacityMetrics.historyForgotten.add({ kind }, now)
          yield* Effect.sleep(PAUSE)
        }
      })

    /** What was forgotten of the days before the first day kept; nothing when retention is off. */
    const sweep = Effect.gen(function*() {
      if (retentionDays === 0) return { orders: 0, usage: 0, networkChanges: 0 }
      const before = keptFrom(yield* Clock.currentTimeMillis, retentionDays)
      const forgotten: Forgotten = {
        orders: yield* drain("orders", retention.forgetOrders, before, ORDERS_PER_STATEMENT),
        usage: yield* drain("usage", retention.forgetUsage, before, ROWS_PER_STATEMENT),
        networkChanges: yield* drain("network_changes", retention.forgetNetworkChanges, before, ROWS_PER_STATEMENT)
      }
      if (forgotten.orders + forgotten.usage + forgotten.networkChanges > 0) {
        yield* Effect.logInfo(
          `forgot the capacity store's days before ${before} (CAPACITY_RETENTION_DAYS=${retentionDays}): ` +
            `${forgotten.orders} orders with their ledger, ${forgotten.usage} usage rows, ${forgotten.networkChanges} network changes`
        )
      }
      return forgotten
    })

    /** The indexes the sweep reads by, built once without blocking writes; without them it is only slower. */
    const indexes = retention.ensureIndexes.pipe(
      Effect.catch((error) => Effect.logWarning("the capacity retention indexes could not be built now; the sweep runs without them, only slower, and the next sweep tries again", error))
    )

    if (retentionDays > 0) {
      yield* Effect.andThen(indexes, sweep).pipe(
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.interrupt
            : Effect.logWarning("forgetting the capacity store's past failed (what was forgotten is counted in capacity_history_forgotten_total); trying again at the next sweep", cause)
        ),
        Effect.repeat(Schedule.spaced(SWEEP_EVERY)),
        Effect.forkScoped
      )
    }

    return { sweep } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
