import { expect } from "@effect/vitest"
import { type Context, Effect, Exit, Fiber, Layer, Scope } from "effect"
import type { HttpServer } from "effect/http"
import { postJson } from "./Http.ts"
import { TestServer } from "./TestServer.ts"

/** Runs requests against one of several test servers of a test. */
export const on = (context: Context.Context<HttpServer.HttpServer>) => <A, E>(effect: Effect.Effect<A, E, HttpServer.HttpServer>) =>
  Effect.provide(effect, context)

/**
 * A feed of batches under sequence numbers (`POST /v1/stock/changes`, `POST /v1/network/changes`):
 * `post` sends one as it is, `applied` sends one that must be taken (200) and answers its result.
 */
export const sequencedFeed = <Result>(path: string, key: string) => {
  const post = (sequence: number, changes: ReadonlyArray<unknown>) => postJson(path, { sequence, changes }, key)
  const applied = (sequence: number, changes: ReadonlyArray<unknown>) =>
    Effect.map(post(sequence, changes), (response) => {
      expect(response.status, response.text).toBe(200)
      return response.json() as Result
    })
  return { post, applied } as const
}

/**
 * A server restarted while another feeds batches: `writer` sends `feedOne(1)`, `feedOne(2)`, ... 20 ms
 * apart; a server is started, asked `probe` and stopped, another is started while the feed goes on,
 * and the feed ends five batches after it is up (however long servers take to start here). Answers
 * the writer's stack and both servers' runners, for the test to compare what each holds with the database.
 */
export const restartedMidFeed = <E>(
  settings: Record<string, string>,
  feedOne: (i: number) => Effect.Effect<unknown, E, HttpServer.HttpServer>,
  probe: Effect.Effect<unknown, E, HttpServer.HttpServer>
) =>
  Effect.gen(function*() {
    const writerStack = yield* Layer.build(TestServer(settings))
    const writer = on(writerStack)
    let sent = 0
    let stop = Number.POSITIVE_INFINITY
    const feeder = yield* Effect.forkChild(writer(Effect.gen(function*() {
      for (let i = 1; i <= stop; i++) {
        yield* feedOne(i)
        sent = i
        yield* Effect.sleep("20 millis")
      }
    })))

    const stopped = yield* Scope.make()
    const early = on(yield* Layer.build(TestServer(settings)).pipe(Scope.provide(stopped)))
    yield* Effect.sleep("100 millis")
    yield* early(probe)
    yield* Scope.close(stopped, Exit.void)
    const sentAtStop = sent
    // Started while the feed goes on: it loads from Postgres, then follows the stream from before its load.
    const restarted = on(yield* Layer.build(TestServer(settings)))
    const sentAtRestart = sent
    stop = sent + 5
    yield* Fiber.join(feeder)
    expect(sentAtStop).toBeGreaterThan(0)
    expect(sent).toBeGreaterThan(sentAtRestart)
    return { writerStack, writer, restarted } as const
  })
