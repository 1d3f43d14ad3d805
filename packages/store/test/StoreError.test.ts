import { SqlError } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import { storeOperation, StoreError } from "../src/StoreError.ts"

describe("storeOperation", () => {
  it.effect("a transaction whose COMMIT or ROLLBACK failed (a SqlError defect from @effect/sql) becomes a StoreError", () =>
    Effect.gen(function*() {
      const lost = new SqlError.SqlError({ cause: new Error("Connection terminated unexpectedly"), message: "Failed to execute statement" })
      const exit = yield* Effect.exit(storeOperation("persistBatch")(Effect.die(lost)))
      expect(exit).toStrictEqual(Exit.fail(new StoreError({ operation: "persistBatch", message: "Failed to execute statement: Connection terminated unexpectedly" })))
    }))

  it.effect("other defects stay defects", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(storeOperation("persistBatch")(Effect.die(new TypeError("a bug"))))
      expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
    }))
})
