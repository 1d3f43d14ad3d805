import { CapacityMetrics } from "@retail/metrics"
import type { CapacityExhausted, CapacityRepository, ConsumeOutcome, GroupedOrder, OrderIdTaken, StoreError, UsageState } from "@retail/store"
import { Effect, Exit, Request, RequestResolver, Semaphore } from "effect"
import type { NonEmptyArray } from "effect/Array"

type TakeError = CapacityExhausted | OrderIdTaken | StoreError

interface TakeOrder extends Request.Request<ConsumeOutcome, TakeError> {
  readonly _tag: "TakeOrder"
  readonly order: GroupedOrder
}
const TakeOrder = Request.tagged<TakeOrder>("TakeOrder")

/** An order committed as applied, and the usage it left. */
export interface AppliedOrder {
  readonly orderId: string
  readonly usage: ReadonlyArray<UsageState>
}

/**
 * Group statements running at once. While one runs, the orders that arrive gather into the next
 * group: at a few orders a second each goes alone at once; at thousands, one statement takes
 * dozens. One in flight took more orders a second at 64 clients than two, in groups of 32 against
 * 20 (docs/capacity.md, "Orders in groups").
 */
export const GROUPS_IN_FLIGHT = 1
/** The most orders one statement takes: a bound on its locks and on its JSON. */
export const MAX_GROUP = 64

export interface AfterGroups {
  /** The orders a statement applied, with the usage it left: shown to the actors and published. */
  readonly afterCommit: (applied: ReadonlyArray<AppliedOrder>) => Effect.Effect<void>
  /**
   * Orders of a failed group found applied when taken again alone: the group may have committed
   * before its failure came back (a lost connection), so their usage was neither shown nor
   * published; what shows them must read it from the database.
   */
  readonly inDoubt: (orders: ReadonlyArray<GroupedOrder>) => Effect.Effect<void>
}

/**
 * Orders placed at the same time are taken together: one `capacity_consume_many` statement
 * (CapacityRepository.consumeMany) for the orders that arrived while earlier groups were in flight,
 * then `afterCommit` once for all the applied ones (the actors, the replica events), then every
 * order is answered. An order alone goes through `capacity_consume` as before. An order id twice
 * in a batch: the repository sends the later copy back (Retry), and it is taken alone right after
 * the group's statement, seeing the first copy's outcome. When a group's statement fails, its
 * orders are taken again one by one, so that one cannot fail the others; those then found applied
 * already go to `inDoubt`. The permit covers the statement only, so a slow actor or Redis holds up
 * its own group's answers, not the next group's statement. Batching is Effect's request batching
 * (RequestResolver): the requests of every fiber that wait for the same resolver join its pending
 * batch.
 */
export const makeOrderGroups = (
  repository: Pick<typeof CapacityRepository.Service, "consume" | "consumeMany">,
  after: AfterGroups
) =>
  Effect.gen(function*() {
    const inFlight = yield* Semaphore.make(GROUPS_IN_FLIGHT)

    const alone = (order: GroupedOrder) => Effect.exit(repository.consume(order.orderId, order.uses, order.request))

    const together = (orders: ReadonlyArray<GroupedOrder>) =>
      repository.consumeMany(orders).pipe(
        Effect.flatMap((outcomes) =>
          Effect.forEach(outcomes, (outcome, i) => (outcome._tag === "Done" ? Effect.exit(Effect.fromResult(outcome.result)) : alone(orders[i]!)))
        ),
        Effect.catch((error) =>
          Effect.gen(function*() {
            yield* Effect.logWarning(`capacity: a group of ${orders.length} orders failed (${error.message}); taking them one by one`)
            const exits = yield* Effect.forEach(orders, alone, { concurrency: "unbounded" })
            const doubtful = orders.filter((_, i) => {
              const exit = exits[i]!
              return Exit.isSuccess(exit) && exit.value._tag === "AlreadyApplied"
            })
            if (doubtful.length > 0) yield* after.inDoubt(doubtful)
            return exits
          })
        )
      )

    const groupSize = CapacityMetrics.orderGroupSize.series({})

    const runGroup = (entries: ReadonlyArray<Request.Entry<TakeOrder>>) =>
      Effect.gen(function*() {
        const orders = entries.map((entry) => entry.request.order)
        groupSize.observe(orders.length)
        const exits: ReadonlyArray<Exit.Exit<ConsumeOutcome, TakeError>> = yield* inFlight.withPermits(1)(
          orders.length === 1 ? Effect.map(alone(orders[0]!), (exit) => [exit]) : together(orders)
        )
        const applied: Array<AppliedOrder> = []
        exits.forEach((exit, i) => {
          if (Exit.isSuccess(exit) && exit.value._tag === "Applied") applied.push({ orderId: orders[i]!.orderId, usage: exit.value.usage })
        })
        if (applied.length > 0) yield* after.afterCommit(applied)
        entries.forEach((entry, i) => entry.completeUnsafe(exits[i]!))
      })

    const resolver = RequestResolver.make<TakeOrder>((entries: NonEmptyArray<Request.Entry<TakeOrder>>) => runGroup(entries)).pipe(
      // Gathers until a group can run: the orders arriving meanwhile join this one.
      RequestResolver.setDelayEffect(Effect.andThen(Effect.yieldNow, inFlight.withPermits(1)(Effect.void))),
      RequestResolver.batchN(MAX_GROUP)
    )

    return (order: GroupedOrder): Effect.Effect<ConsumeOutcome, TakeError> => Effect.request(TakeOrder({ order }), resolver)
  })
