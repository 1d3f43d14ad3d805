import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { FileLoadSlots, LimitsConfig } from "../src/index.ts"

describe("FileLoadSlots", () => {
  it.effect("at most N loads of a company at once; a slot is freed when its load ends, even by failure", () =>
    Effect.gen(function*() {
      const slots = yield* FileLoadSlots
      const gate = yield* Deferred.make<void>()
      const started = [yield* Deferred.make<void>(), yield* Deferred.make<void>()] as const
      const running = yield* Effect.forEach(started, (s) =>
        Effect.forkChild(slots.withSlot("ACME")(Effect.andThen(Deferred.succeed(s, undefined), Deferred.await(gate)))))
      yield* Effect.forEach(started, Deferred.await)
      const refused = yield* Effect.flip(slots.withSlot("ACME")(Effect.void))
      expect(refused).toMatchObject({ _tag: "TooManyFileLoads", company: "ACME", limit: 2, retryAfterSeconds: 5 })
      yield* slots.withSlot("OTHER")(Effect.void)
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.joinAll(running)
      yield* Effect.flip(slots.withSlot("ACME")(Effect.fail("boom")))
      yield* slots.withSlot("ACME")(Effect.void)
    }).pipe(Effect.provide(FileLoadSlots.layer.pipe(Layer.provide(LimitsConfig.test({ fileLoadsPerCompany: 2 }))))))
})
