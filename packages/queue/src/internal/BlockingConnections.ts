/**
 * Connections reserved for blocking reads. A command with BLOCK holds its
 * connection until it returns, so each concurrent blocking read gets a
 * connection of its own, reused afterwards. A connection whose command failed,
 * timed out or was interrupted may still be blocked or broken: it is destroyed
 * rather than reused.
 */
import { Effect, Exit, HashSet, Ref } from "effect"
import type { Scope } from "effect"
import type { RedisClientType } from "redis"
import { QueueError } from "../StreamQueue.ts"

export type Client = RedisClientType

interface State {
  readonly closed: boolean
  readonly idle: ReadonlyArray<Client>
  readonly open: HashSet.HashSet<Client>
}

export interface BlockingConnections {
  readonly use: <A>(operation: string, f: (client: Client) => Effect.Effect<A, QueueError>) => Effect.Effect<A, QueueError>
}

export const make = (options: {
  /** A new, not yet connected client that does not reconnect by itself. */
  readonly create: () => Client
  readonly connect: (operation: string, client: Client) => Effect.Effect<void, QueueError>
}): Effect.Effect<BlockingConnections, never, Scope.Scope> =>
  Effect.gen(function*() {
    const state = yield* Ref.make<State>({ closed: false, idle: [], open: HashSet.empty() })

    const destroy = (client: Client) => Effect.sync(() => client.destroy())

    const discard = (client: Client) =>
      Ref.update(state, (s) => ({ ...s, open: HashSet.remove(s.open, client) })).pipe(Effect.andThen(destroy(client)))

    const giveBack = (client: Client) =>
      Ref.modify(state, (s) => s.closed ? [true, s] as const : [false, { ...s, idle: [...s.idle, client] }] as const).pipe(
        Effect.flatMap((closed) => closed ? destroy(client) : Effect.void)
      )

    const fresh = (operation: string) =>
      Effect.suspend(() => {
        const client = options.create()
        return Ref.modify(state, (s) => s.closed ? [true, s] as const : [false, { ...s, open: HashSet.add(s.open, client) }] as const).pipe(
          Effect.flatMap((closed) =>
            closed
              ? Effect.andThen(destroy(client), Effect.fail(new QueueError({ operation, message: "the queue is closed" })))
              : Effect.interruptible(options.connect(operation, client)).pipe(
                Effect.onError(() => discard(client)),
                Effect.as(client)
              )
          )
        )
      })

    const acquire = (operation: string): Effect.Effect<Client, QueueError> =>
      Ref.modify(state, (s) => {
        const [first, ...rest] = s.idle
        return first === undefined ? [undefined, s] as const : [first, { ...s, idle: rest }] as const
      }).pipe(
        Effect.flatMap((idle) => {
          if (idle === undefined) return fresh(operation)
          // It may have lost its server while idle.
          return idle.isReady ? Effect.succeed(idle) : Effect.andThen(discard(idle), acquire(operation))
        })
      )

    yield* Effect.addFinalizer(() =>
      Ref.getAndSet(state, { closed: true, idle: [], open: HashSet.empty() }).pipe(
        Effect.flatMap((s) => Effect.forEach(s.open, destroy, { discard: true }))
      )
    )

    return {
      use: (operation, f) =>
        Effect.acquireUseRelease(
          acquire(operation),
          f,
          (client, exit) => Exit.isSuccess(exit) ? giveBack(client) : discard(client)
        )
    }
  })
