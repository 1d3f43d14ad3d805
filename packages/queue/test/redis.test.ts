import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { Effect, Schedule } from "effect"
import { createClient } from "redis"
import { QueueError, RedisStreamQueue } from "../src/index.ts"
import { streamQueueContract } from "./contract.ts"

const url = process.env["REDIS_URL"]
const run = promisify(execFile)

const deleteKeys = (keys: ReadonlyArray<string>) =>
  Effect.promise(async () => {
    const client = createClient({ url: url ?? "" })
    client.on("error", () => undefined)
    await client.connect()
    await client.del([...keys])
    await client.close()
  }).pipe(Effect.timeout("5 seconds"), Effect.orDie)

const hasRedisServer = await run("redis-server", ["--version"]).then(() => true, () => false)

describe.runIf(url !== undefined)("RedisStreamQueue", () => {
  streamQueueContract({
    name: "redis",
    layer: RedisStreamQueue.layer({ url: url ?? "" }),
    cleanup: deleteKeys
  })

  it.live("deadLetter acks nothing when the dead letter cannot be written", () =>
    Effect.gen(function*() {
      const stream = `test:queue:${crypto.randomUUID()}`
      yield* Effect.addFinalizer(() => deleteKeys([stream, `${stream}:dead`]))
      const queue = yield* RedisStreamQueue.make({ url: url ?? "" })
      yield* queue.ensureGroup(stream, "g")
      yield* queue.publish(stream, ["poison"])
      const [delivery] = yield* queue.read(stream, "g", "c", { count: 1, blockMs: 0 })
      if (delivery === undefined) return expect.unreachable()
      yield* Effect.promise(async () => {
        const client = createClient({ url: url ?? "" })
        await client.connect()
        await client.set(`${stream}:dead`, "not a stream")
        await client.close()
      })
      const error = yield* Effect.flip(queue.deadLetter(stream, "g", delivery, "boom"))
      expect(error.operation).toBe("deadLetter")
      const still = yield* queue.claimStale(stream, "g", "c2", { minIdleMs: 0, count: 10 })
      expect(still.map((d) => d.id)).toEqual([delivery.id])
    }))

  it.live("a malformed URL fails the layer with QueueError", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(RedisStreamQueue.make({ url: "not a url" }))
      expect(error).toBeInstanceOf(QueueError)
    }))
})

// A private redis-server: the shared one must never be stopped.
describe.runIf(hasRedisServer)("RedisStreamQueue while its server comes and goes", () => {
  const port = 20_000 + Math.floor(Math.random() * 10_000)
  const start = Effect.promise(() =>
    run("redis-server", ["--port", String(port), "--save", "", "--appendonly", "no", "--daemonize", "yes", "--dir", "/tmp"])
  )
  const stop = Effect.promise(() => run("redis-cli", ["-p", String(port), "shutdown", "nosave"]).catch(() => undefined))
  const eventually = <A, E>(self: Effect.Effect<A, E>) =>
    Effect.retry(self, Schedule.max([Schedule.spaced("100 millis"), Schedule.recurs(100)]))

  it.live("starts without Redis, fails fast while it is down, and recovers without a restart", () =>
    Effect.gen(function*() {
      yield* Effect.addFinalizer(() => stop)
      // Built in the test's scope, so it lives as long as the test.
      const queue = yield* RedisStreamQueue.make({
        url: `redis://127.0.0.1:${port}`,
        commandTimeoutMs: 1_000,
        reconnectMaxDelayMs: 200
      })
      // Never hangs: the layer built, and commands fail while nothing listens.
      expect(yield* Effect.flip(queue.ping)).toBeInstanceOf(QueueError)

      yield* start
      yield* eventually(queue.ping)
      yield* queue.ensureGroup("s", "g")
      yield* queue.publish("s", ["before"])
      expect((yield* queue.read("s", "g", "c", { count: 10, blockMs: 500 })).map((d) => d.payload)).toEqual(["before"])

      yield* stop
      const down = yield* Effect.all([
        Effect.flip(queue.publish("s", ["lost"])),
        Effect.flip(queue.read("s", "g", "c", { count: 10, blockMs: 500 })),
        Effect.flip(queue.ack("s", "g", ["1-1"]))
      ]).pipe(Effect.timeout("3 seconds"))
      for (const error of down) expect(error).toBeInstanceOf(QueueError)

      yield* start
      yield* eventually(queue.ensureGroup("s", "g"))
      yield* queue.publish("s", ["after"])
      const read = yield* queue.read("s", "g", "c", { count: 10, blockMs: 500 })
      // The server came back empty ("--save ''"): nothing published while it was down got through.
      expect(read.map((d) => d.payload)).toEqual(["after"])
      // A blocking read on a fresh connection still wakes on publish.
      const [late] = yield* Effect.all([
        queue.read("s", "g", "c", { count: 10, blockMs: 5_000 }),
        Effect.andThen(Effect.sleep("100 millis"), queue.publish("s", ["late"]))
      ], { concurrency: "unbounded" })
      expect(late.map((d) => d.payload)).toEqual(["late"])
    }), 60_000)
})
