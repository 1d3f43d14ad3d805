import { describe, expect, it } from "@effect/vitest"
import { type AppliedOrder, GROUPS_IN_FLIGHT, makeOrderGroups, MAX_GROUP } from "@retail/service-capacity"
import { CapacityExhausted, type ConsumeOutcome, type GroupedOrder, type GroupedOutcome, StoreError } from "@retail/store"
import { Deferred, Effect, Fiber, Result } from "effect"

const order = (orderId: string): GroupedOrder => ({
  orderId,
  uses: [{ use: { resource: { _tag: "Picking", node: "N", pool: "ALL" }, date: "2031-01-06", amount: 1 }, total: 100 }]
})
const applied = (orderId: string): ConsumeOutcome => ({
  _tag: "Applied",
  usage: [{ resource: { _tag: "Picking", node: "N", pool: "ALL" }, date: "2031-01-06", used: orderId.length, revision: 1 }]
})
const exhausted = new CapacityExhausted({ kind: "PICKING", code: "N", slot: "ALL", date: "2031-01-06", requested: 1, total: 100 })

/**
 * A repository that records every statement. Single orders wait for `gate` when it is set (a
 * statement in flight); a group answers by `groupAnswer`, or fails when `failGroups` is set.
 */
const recording = Effect.gen(function*() {
  const calls: Array<{ readonly kind: "alone" | "group"; readonly ids: ReadonlyArray<string> }> = []
  const committed: Array<ReadonlyArray<string>> = []
  let gate: Deferred.Deferred<void> | undefined = yield* Deferred.make<void>()
  let failGroups = false
  let groupAnswer = (o: GroupedOrder): GroupedOutcome => ({ _tag: "Done", result: Result.succeed(applied(o.orderId)) })
  const repository = {
    consume: (orderId: string) =>
      Effect.gen(function*() {
        calls.push({ kind: "alone", ids: [orderId] })
        if (gate !== undefined) yield* Deferred.await(gate)
        if (orderId.startsWith("full")) return yield* exhausted
        if (orderId.startsWith("done")) return { _tag: "AlreadyApplied" } as const
        return applied(orderId)
      }),
    // As CapacityRepository.consumeMany: a later copy of an id in the group is sent back (Retry).
    consumeMany: (orders: ReadonlyArray<GroupedOrder>) =>
      Effect.suspend(() => {
        calls.push({ kind: "group", ids: orders.map((o) => o.orderId) })
        return failGroups
          ? Effect.fail(new StoreError({ operation: "consumeCapacityGroup", message: "deadlock detected" }))
          : Effect.succeed(orders.map((o, i): GroupedOutcome =>
            orders.findIndex((other) => other.orderId === o.orderId) < i ? { _tag: "Retry" } : groupAnswer(o)
          ))
      })
  }
  const doubted: Array<ReadonlyArray<string>> = []
  const slowCommits = yield* Deferred.make<void>()
  const groups = yield* makeOrderGroups(repository, {
    // Orders named "slow…" are shown and published only once `slowCommits` is done (a stalled actor or Redis).
    afterCommit: (orders: ReadonlyArray<AppliedOrder>) =>
      Effect.andThen(
        orders.some((o) => o.orderId.startsWith("slow")) ? Deferred.await(slowCommits) : Effect.void,
        Effect.sync(() => {
          committed.push(orders.map((o) => o.orderId))
        })
      ),
    inDoubt: (orders) =>
      Effect.sync(() => {
        doubted.push(orders.map((o) => o.orderId))
      })
  })
  return {
    calls,
    committed,
    doubted,
    slowCommits,
    take: (orderId: string) => Effect.result(groups(order(orderId))),
    open: Effect.suspend(() => (gate === undefined ? Effect.void : Deferred.succeed(gate, undefined))).pipe(Effect.andThen(Effect.sync(() => {
      gate = undefined
    }))),
    failGroups: () => {
      failGroups = true
    },
    answerGroupsWith: (answer: (o: GroupedOrder) => GroupedOutcome) => {
      groupAnswer = answer
    }
  }
})

type Recording = Effect.Success<typeof recording>

/** Starts orders in fibers, all at once, and lets them reach the resolver before going on. */
const place = (repository: Recording, ids: ReadonlyArray<string>) =>
  Effect.tap(Effect.forEach(ids, (id) => Effect.forkChild(repository.take(id))), () => Effect.yieldNow)

/** Starts orders in fibers one after another, each a few scheduler turns after the one before. */
const placeInTurn = (repository: Recording, ids: ReadonlyArray<string>) =>
  Effect.forEach(ids, (id) => Effect.tap(Effect.forkChild(repository.take(id)), () => Effect.repeat(Effect.yieldNow, { times: 5 })))

/** Yields until `done` holds (at most 1,000 times: the fibers it waits for need only a few). */
const until = (done: () => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 1_000 && !done(); i++) yield* Effect.yieldNow
    expect(done()).toBe(true)
  })

/** As many orders as groups may run at once, one after another, each held in its statement. */
const holdEveryGroup = (repository: Recording) =>
  Effect.forEach(Array.from({ length: GROUPS_IN_FLIGHT }, (_, i) => `first-${i}`), (id, i) =>
    Effect.tap(Effect.forkChild(repository.take(id)), () => until(() => repository.calls.length === i + 1)))

describe("orders in groups (OrderGroups.ts)", () => {
  it.effect("an order alone is one capacity_consume, answered after its commit is shown", () =>
    Effect.gen(function*() {
      const repository = yield* recording
      yield* repository.open
      expect(yield* repository.take("solo")).toEqual(Result.succeed(applied("solo")))
      expect(repository.calls).toEqual([{ kind: "alone", ids: ["solo"] }])
      expect(repository.committed).toEqual([["solo"]])
    }))

  it.effect("orders arriving while groups are in flight gather into one statement, each answered with its own outcome", () =>
    Effect.gen(function*() {
      const repository = yield* recording
      const first = yield* holdEveryGroup(repository)
      const waiting = Array.from({ length: 10 }, (_, i) => (i === 3 ? "full-3" : `next-${i}`))
      repository.answerGroupsWith((o) => ({
        _tag: "Done",
        result: o.orderId.startsWith("full") ? Result.fail(exhausted) : Result.succeed(applied(o.orderId))
      }))
      // Each in a turn of its own: the group waiting for a statement to end takes them all.
      const next = yield* placeInTurn(repository, waiting)
      expect(repository.calls.map((call) => call.kind)).toEqual(Array(GROUPS_IN_FLIGHT).fill("alone"))
      yield* repository.open
      const answers = yield* Fiber.joinAll([...first, ...next])
      expect(repository.calls.slice(GROUPS_IN_FLIGHT)).toEqual([{ kind: "group", ids: waiting }])
      expect(answers.slice(GROUPS_IN_FLIGHT)).toEqual(waiting.map((id) => (id === "full-3" ? Result.fail(exhausted) : Result.succeed(applied(id)))))
      // The actors and the stream hear of a group's applied orders once, the refused one left out.
      expect(repository.committed.at(-1)).toEqual(waiting.filter((id) => id !== "full-3"))
    }))

  it.effect("an order whose commit is slow to show holds up its own answer, not the next group's statement", () =>
    Effect.gen(function*() {
      const repository = yield* recording
      yield* repository.open
      const slow = yield* Effect.forkChild(repository.take("slow-1"))
      yield* until(() => repository.calls.length === 1)
      const quick = yield* Effect.forkChild(repository.take("quick-1"))
      yield* until(() => repository.calls.length === 2)
      expect(yield* Fiber.join(quick)).toEqual(Result.succeed(applied("quick-1")))
      expect(repository.committed).toEqual([["quick-1"]])
      yield* Deferred.succeed(repository.slowCommits, undefined)
      expect(yield* Fiber.join(slow)).toEqual(Result.succeed(applied("slow-1")))
      expect(repository.committed).toEqual([["quick-1"], ["slow-1"]])
    }))

  it.effect(`a group holds at most ${MAX_GROUP} orders; a later copy of an order id sent back by the group is taken alone after its statement`, () =>
    Effect.gen(function*() {
      const repository = yield* recording
      const first = yield* holdEveryGroup(repository)
      const many = Array.from({ length: MAX_GROUP + 3 }, (_, i) => (i === 5 || i === 9 ? "twice" : `many-${i}`))
      const next = yield* place(repository, many)
      yield* repository.open
      yield* Fiber.joinAll([...first, ...next])
      const statements = repository.calls.slice(GROUPS_IN_FLIGHT)
      const full = { kind: "group", ids: many.slice(0, MAX_GROUP) }
      // A full group goes at once and waits for the statement in flight like the rest: either may go first.
      expect(statements).toHaveLength(3)
      expect(statements).toEqual(expect.arrayContaining([full, { kind: "alone", ids: ["twice"] }, { kind: "group", ids: many.slice(MAX_GROUP) }]))
      expect(statements.findIndex((call) => call.ids.length === 1)).toBeGreaterThan(statements.findIndex((call) => call.ids.length === full.ids.length))
    }))

  it.effect("a group whose statement fails, and an order the group sent back (RETRY), are taken one by one; one found applied is in doubt", () =>
    Effect.gen(function*() {
      const repository = yield* recording
      const first = yield* holdEveryGroup(repository)
      repository.failGroups()
      const failing = ["f-1", "full-2", "f-3"]
      const next = yield* place(repository, failing)
      yield* repository.open
      const answers = yield* Fiber.joinAll([...first, ...next])
      expect(repository.calls.slice(GROUPS_IN_FLIGHT).map((call) => call.ids.join(","))).toEqual(["f-1,full-2,f-3", "f-1", "full-2", "f-3"])
      expect(answers.slice(GROUPS_IN_FLIGHT)).toEqual([Result.succeed(applied("f-1")), Result.fail(exhausted), Result.succeed(applied("f-3"))])

      expect(repository.doubted).toEqual([])

      // Found applied when taken alone: the group may have committed before it failed, so the order goes to inDoubt, not afterCommit.
      const lost = yield* recording
      const holding = yield* holdEveryGroup(lost)
      lost.failGroups()
      const cut = yield* place(lost, ["done-1", "d-2"])
      yield* lost.open
      const cutAnswers = yield* Fiber.joinAll([...holding, ...cut])
      expect(cutAnswers.slice(GROUPS_IN_FLIGHT)).toEqual([Result.succeed({ _tag: "AlreadyApplied" }), Result.succeed(applied("d-2"))])
      expect(lost.doubted).toEqual([["done-1"]])
      expect(lost.committed.at(-1)).toEqual(["d-2"])

      const again = yield* recording
      const held = yield* holdEveryGroup(again)
      again.answerGroupsWith((o) => (o.orderId === "r-2" ? { _tag: "Retry" } : { _tag: "Done", result: Result.succeed(applied(o.orderId)) }))
      const retried = yield* place(again, ["r-1", "r-2"])
      yield* again.open
      yield* Fiber.joinAll([...held, ...retried])
      expect(again.calls.slice(GROUPS_IN_FLIGHT)).toEqual([{ kind: "group", ids: ["r-1", "r-2"] }, { kind: "alone", ids: ["r-2"] }])
      expect(again.committed.at(-1)).toEqual(["r-1", "r-2"])
    }))
})
