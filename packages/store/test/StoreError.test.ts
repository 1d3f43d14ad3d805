import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import { SqlError } from "effect/sql"
import { storeOperation, StoreError } from "../src/StoreError.ts"

describe("storeOperation", () => {
  it.effect("a transaction whose COMMIT (a SqlError failure) or ROLLBACK (a SqlError defect from effect/sql) failed becomes a StoreError", () =>
    Effect.gen(function*() {
      const lost = new SqlError.SqlError({
        reason: new SqlError.ConnectionError({ cause: new Error("Connection terminated unexpectedly"), message: "Failed to execute statement" })
      })
      const expected = Exit.fail(new StoreError({ operation: "persistBatch", message: "Failed to execute statement: Connection terminated unexpectedly" }))
      expect(yield* Effect.exit(storeOperation("persistBatch")(Effect.die(lost)))).toStrictEqual(expected)
      expect(yield* Effect.exit(storeOperation("persistBatch")(Effect.fail(lost)))).toStrictEqual(expected)
    }))

  it.effect("other defects stay defects", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(storeOperation("persistBatch")(Effect.die(new TypeError("a bug"))))
      expect(Exit.isFailure(exit) && Cause.hasDies(exit.cause)).toBe(true)
    }))
})
